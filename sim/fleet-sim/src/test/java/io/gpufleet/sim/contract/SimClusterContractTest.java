package io.gpufleet.sim.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.real.RealCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The {@link KubernetesContract} against the simulator ({@link SimCluster}), one per case. */
class SimClusterContractTest extends KubernetesContract {
  static final String NAMESPACE = "contract";

  SimCluster sim;
  KubernetesClient client;
  ClusterUnderTest cluster;

  @BeforeEach
  void start() {
    sim = SimCluster.start(SimTime.realTime());
    // an evicted pod takes a second to end (within its grace), as a kubelet stopping it would
    sim.setTerminationTime(p -> Duration.ofSeconds(1));
    client = sim.newClient();
    cluster = new Sim();
  }

  @AfterEach
  void stop() {
    client.close();
    sim.close();
  }

  @Override
  ClusterUnderTest cluster() {
    return cluster;
  }

  final class Sim implements ClusterUnderTest {
    @Override
    public KubernetesClient client() {
      return client;
    }

    @Override
    public String namespace() {
      return NAMESPACE;
    }

    @Override
    public String unique(String name) {
      return name;
    }

    @Override
    public Map<String, String> nodeSelector() {
      return Map.of("gpufleet.io/test-scope", NAMESPACE);
    }

    @Override
    public String node(String name) {
      sim.create(
          SimCluster.gpuNode(
              name,
              "i-0c0ffee000000000" + name.length(),
              "us-east-1a",
              "g6e.12xlarge",
              "spot",
              "gpu-inference",
              null,
              4));
      return name;
    }

    @Override
    public List<Pod> readyPods(String app, String node, int count) {
      var out = new ArrayList<Pod>();
      for (int i = 0; i < count; i++) {
        Pod pod =
            SimCluster.runningPod(
                NAMESPACE,
                app + "-" + i,
                node,
                null,
                null,
                Map.of("app", app),
                POD_GRACE_SECONDS,
                0);
        // the simulator has no kubelet: the pod is created as one would leave it, Running + Ready
        out.add(sim.create(new PodBuilder(pod).editMetadata().withUid(null).endMetadata().build()));
      }
      return out;
    }

    @Override
    public PodDisruptionBudget awaitPdb(
        String name, String what, Predicate<PodDisruptionBudget> condition) {
      // the simulator's disruption controller runs when asked to
      sim.refreshPdbStatus(NAMESPACE, name);
      PodDisruptionBudget pdb =
          client.policy().v1().podDisruptionBudget().inNamespace(NAMESPACE).withName(name).get();
      assertThat(pdb.getStatus()).as("status of PDB " + name).isNotNull();
      assertThat(condition.test(pdb))
          .as("PDB " + name + " " + what + ": " + pdb.getStatus())
          .isTrue();
      return pdb;
    }

    @Override
    public void awaitGone(String pod) {
      RealCluster.await(
          "pod " + pod + " gone",
          Duration.ofSeconds(10),
          () -> client.pods().inNamespace(NAMESPACE).withName(pod).get() == null);
    }

    @Override
    public void awaitObserved(String deployment) {
      // no Deployment controller in the simulator: nothing writes the Deployment behind our back
    }
  }
}

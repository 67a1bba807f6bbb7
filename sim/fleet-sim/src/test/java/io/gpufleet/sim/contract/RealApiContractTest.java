package io.gpufleet.sim.contract;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;

/**
 * The {@link KubernetesContract} against the real API server tier (kube-apiserver, etcd, the
 * controller-manager's disruption and Deployment controllers, kwok as the kubelets), as admin: the
 * functions' permissions are held to elsewhere (each module's real-API tests run as its identity),
 * this suite holds the simulator to the server's semantics.
 */
@RealApiServerTest
class RealApiContractTest extends KubernetesContract {
  ClusterUnderTest cluster;

  @BeforeEach
  void start(RealCluster real, RealNamespace ns) {
    cluster = new Real(real, ns);
  }

  @Override
  ClusterUnderTest cluster() {
    return cluster;
  }

  record Real(RealCluster real, RealNamespace ns) implements ClusterUnderTest {
    @Override
    public KubernetesClient client() {
      return real.admin();
    }

    @Override
    public String namespace() {
      return ns.name();
    }

    @Override
    public String unique(String name) {
      return ns.name() + "-" + name;
    }

    @Override
    public Map<String, String> nodeSelector() {
      return ns.nodeSelector();
    }

    @Override
    public String node(String name) {
      String instance = String.format("i-0c0ffee%09x", Math.abs(Objects.hash(ns.name(), name)));
      return ns.createNode(
              KwokNodes.Spec.karpenter(
                  name, instance, "us-east-1a", "g6e.12xlarge", "spot", "gpu-inference", 4))
          .getMetadata()
          .getName();
    }

    @Override
    public List<Pod> readyPods(String app, String node, int count) {
      var labels = RealNamespace.labels("app", app);
      for (int i = 0; i < count; i++) {
        var template = ns.podTemplate(labels, 0);
        Pod pod =
            new PodBuilder()
                .withMetadata(template.getMetadata())
                .editMetadata()
                .withName(app + "-" + i)
                .withNamespace(ns.name())
                .endMetadata()
                .withSpec(template.getSpec())
                .editSpec()
                .withNodeName(node)
                .withTerminationGracePeriodSeconds(POD_GRACE_SECONDS)
                .endSpec()
                .build();
        client().pods().inNamespace(ns.name()).resource(pod).create();
      }
      return ns.awaitReadyPods(labels, count).stream()
          .sorted(java.util.Comparator.comparing(p -> p.getMetadata().getName()))
          .toList();
    }

    @Override
    public PodDisruptionBudget awaitPdb(
        String name, String what, Predicate<PodDisruptionBudget> condition) {
      return ns.awaitPdb(name, what, condition);
    }

    @Override
    public void awaitGone(String pod) {
      RealCluster.await(
          "pod " + pod + " gone",
          RealNamespace.WAIT,
          () -> client().pods().inNamespace(ns.name()).withName(pod).get() == null);
    }

    @Override
    public void awaitObserved(String deployment) {
      RealCluster.await(
          "Deployment " + deployment + " observed by its controller",
          Duration.ofSeconds(60),
          () -> {
            var d = client().apps().deployments().inNamespace(ns.name()).withName(deployment).get();
            return d != null
                && d.getStatus() != null
                && Objects.equals(
                    d.getStatus().getObservedGeneration(), d.getMetadata().getGeneration());
          });
    }
  }
}

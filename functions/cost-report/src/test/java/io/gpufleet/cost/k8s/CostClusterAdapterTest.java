package io.gpufleet.cost.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Kubernetes adapter against the simulated API server seeded with the demo fleet. */
class CostClusterAdapterTest {
  SimCluster cluster;
  KubernetesClient client;

  @BeforeEach
  void start() {
    cluster = SimCluster.start(SimTime.realTime());
    client = cluster.newClient();
    DemoFleet.populate(cluster);
  }

  @AfterEach
  void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void shouldMapNodesWithInstanceIdsPoolsAndGpus() {
    var nodes = new CostClusterAdapter(client, "team").nodes();

    assertThat(nodes).hasSize(DemoFleet.NODES.size());
    var p5 =
        nodes.stream()
            .filter(n -> n.name().equals("ip-10-0-1-11.ec2.internal"))
            .findFirst()
            .orElseThrow();
    assertThat(p5.instanceId()).isEqualTo("i-0a1b2c3d4e5f60011");
    assertThat(p5.instanceType()).isEqualTo("p5.48xlarge");
    assertThat(p5.zone()).isEqualTo("us-east-1a");
    assertThat(p5.nodePool()).isEqualTo("gpu-training");
    assertThat(p5.capacityTypeLabel()).isEqualTo("spot");
    assertThat(p5.accelerators()).isEqualTo(8);
    assertThat(p5.acceleratorResource()).isEqualTo("nvidia.com/gpu");
    var ng =
        nodes.stream()
            .filter(n -> n.name().equals("gpu-worker-custom-8"))
            .findFirst()
            .orElseThrow();
    assertThat(ng.nodeGroup()).isEqualTo("ng-gpu-dra");
    assertThat(ng.capacityTypeLabel()).isEqualTo("SPOT");
  }

  @Test
  void shouldReadGpuCpuAndMemoryRequestsAndTheTeamLabel() {
    cluster.create(
        new PodBuilder(
                SimCluster.runningPod(
                    "research",
                    "neuron-job",
                    "ip-10-0-1-12.ec2.internal",
                    "Job",
                    "j",
                    Map.of("team", "nlp"),
                    30,
                    0))
            .editSpec()
            .editFirstContainer()
            .editResources()
            .addToRequests("cpu", new Quantity("1500m"))
            .addToRequests("memory", new Quantity("8Gi"))
            .addToLimits("aws.amazon.com/neuroncore", new Quantity("2"))
            .endResources()
            .endContainer()
            .addNewInitContainer()
            .withName("init")
            .withNewResources()
            .addToRequests("cpu", new Quantity("4"))
            .endResources()
            .endInitContainer()
            .endSpec()
            .build());

    var pods = new CostClusterAdapter(client, "team").pods();

    var finetune =
        pods.stream().filter(p -> p.name().equals("llm-finetune-0")).findFirst().orElseThrow();
    assertThat(finetune.accelerators()).containsEntry("nvidia.com/gpu", 8.0);
    assertThat(finetune.nodeName()).isEqualTo("ip-10-0-1-11.ec2.internal");
    var neuron = pods.stream().filter(p -> p.name().equals("neuron-job")).findFirst().orElseThrow();
    assertThat(neuron.team()).isEqualTo("nlp");
    assertThat(neuron.cpuMillis()).isEqualTo(4000); // the init container asks for more
    assertThat(neuron.memoryBytes()).isEqualTo(8L << 30);
    assertThat(neuron.accelerators())
        .containsEntry("aws.amazon.com/neuroncore", 2.0); // limits only
    // the finished job has no container finish time in the simulator: not counted
    assertThat(pods).noneMatch(p -> p.name().equals("preprocess-job-x7k2"));
  }
}

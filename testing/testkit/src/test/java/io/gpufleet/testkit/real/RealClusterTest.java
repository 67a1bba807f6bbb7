package io.gpufleet.testkit.real;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpufleet.sim.real.K8sBinaries;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tier itself: kwok GPU nodes run scheduled pods, clients work, and nothing leaks. */
@RealApiServerTest
class RealClusterTest {

  @Test
  void shouldScheduleAndRunPodsOnKwokGpuNodes(RealNamespace ns) {
    // Given a Karpenter spot node and a managed node group node, both with 4 GPUs
    var karpenter =
        ns.createNode(
            KwokNodes.Spec.karpenter(
                "karpenter",
                "i-0f00000000000a001",
                "us-east-1b",
                "g6e.12xlarge",
                "spot",
                "gpu-inference",
                4));
    var managed =
        ns.createNode(
            KwokNodes.Spec.nodeGroup(
                "managed",
                "i-0f00000000000a002",
                "us-east-1c",
                "p5.48xlarge",
                "on-demand",
                "gpu-training",
                8));

    // Then the API server keeps what the functions read from them
    assertThat(karpenter.getSpec().getProviderID())
        .isEqualTo("aws:///us-east-1b/i-0f00000000000a001");
    assertThat(karpenter.getMetadata().getLabels())
        .containsEntry("karpenter.sh/nodepool", "gpu-inference")
        .containsEntry("karpenter.sh/capacity-type", "spot");
    assertThat(managed.getMetadata().getLabels())
        .containsEntry("eks.amazonaws.com/nodegroup", "gpu-training");
    assertThat(managed.getStatus().getAllocatable().get("nvidia.com/gpu").getAmount())
        .isEqualTo("8");

    // When a Deployment asks for 3 pods of 4 GPUs each
    var labels = RealNamespace.labels("app", "trainer");
    ns.createDeployment("trainer", 3, labels, 4);

    // Then the scheduler places them by GPU capacity (one on the 4-GPU node, two on the 8-GPU node)
    // and kwok runs them
    List<Pod> pods = ns.awaitReadyPods(labels, 3);
    assertThat(pods)
        .extracting(p -> p.getSpec().getNodeName())
        .containsExactlyInAnyOrder(
            karpenter.getMetadata().getName(),
            managed.getMetadata().getName(),
            managed.getMetadata().getName());
    assertThat(pods).allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
  }

  @Test
  void shouldGiveKubeconfigUsersTheAdminClientCertificate(RealCluster cluster, RealNamespace ns)
      throws Exception {
    var config = Config.fromKubeconfig(Files.readString(cluster.kubeconfig()));
    try (var client = new KubernetesClientBuilder().withConfig(config).build()) {
      assertThat(client.namespaces().withName(ns.name()).get()).isNotNull();
      // anonymous users may not list nodes under RBAC: this is the certificate's identity at work
      assertThat(client.nodes().list().getItems()).isNotNull();
    }
  }

  @Test
  void shouldStopEveryProcessAndDeleteItsDirectoryOnClose(RealCluster shared) throws Exception {
    // Given a second cluster of its own (the shared one stays up for the other tests)
    var cluster = RealCluster.start(K8sBinaries.locate());
    Path dir = cluster.workDir();
    assertThat(cluster.pids()).containsOnlyKeys(RealCluster.COMPONENTS);
    var pids = List.copyOf(cluster.pids().values());
    assertThat(pids).allSatisfy(pid -> assertThat(ProcessHandle.of(pid)).isPresent());
    assertThat(cluster.client().namespaces().withName("default").get()).isNotNull();

    // When it is closed
    cluster.close();

    // Then none of its processes is left and its directory is gone
    assertThat(pids)
        .allSatisfy(
            pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty());
    assertThat(dir).doesNotExist();
    assertThat(shared.healthy()).isTrue();
  }
}

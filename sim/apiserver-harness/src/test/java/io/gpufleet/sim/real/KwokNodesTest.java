package io.gpufleet.sim.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class KwokNodesTest {
  @Test
  void shouldLookLikeAKarpenterSpotGpuNodeThatKwokManages() {
    var node =
        KwokNodes.Spec.karpenter(
                "n1", "i-0abc", "us-west-2b", "g6e.12xlarge", "spot", "gpu-inference", 4)
            .scopedTo("ns1")
            .node();

    assertThat(node.getSpec().getProviderID()).isEqualTo("aws:///us-west-2b/i-0abc");
    assertThat(node.getMetadata().getAnnotations())
        .containsEntry(KwokNodes.MANAGED_ANNOTATION, KwokNodes.MANAGED_VALUE);
    assertThat(node.getMetadata().getLabels())
        .containsEntry("karpenter.sh/nodepool", "gpu-inference")
        .containsEntry("karpenter.sh/capacity-type", "spot")
        .containsEntry("topology.kubernetes.io/region", "us-west-2")
        .containsEntry(KwokNodes.SCOPE_LABEL, "ns1")
        .doesNotContainKey("eks.amazonaws.com/nodegroup");
    assertThat(node.getStatus().getCapacity().get("nvidia.com/gpu").getAmount()).isEqualTo("4");
    assertThat(node.getStatus().getAllocatable()).containsKeys("cpu", "memory", "pods");
  }

  @Test
  void shouldCarryTheNodeGroupLabelsForManagedNodeGroups() {
    var node =
        KwokNodes.Spec.nodeGroup("n2", "i-0def", "us-east-1a", "p5.48xlarge", "on-demand", "ng", 8)
            .node();

    assertThat(node.getMetadata().getLabels())
        .containsEntry("eks.amazonaws.com/nodegroup", "ng")
        .containsEntry("eks.amazonaws.com/capacityType", "ON_DEMAND")
        .doesNotContainKey("karpenter.sh/nodepool");
  }

  @Test
  void shouldRefuseAnInstanceIdTheDrainCouldNotMatch() {
    assertThatThrownBy(
            () ->
                KwokNodes.Spec.karpenter("n", "node-1", "us-east-1a", "g6", "spot", "p", 1).node())
        .hasMessageContaining("i-...");
  }

  @Test
  void shouldTimePodsWithKwokStageAnnotations() {
    assertThat(KwokNodes.podTiming(Duration.ofSeconds(3)))
        .containsEntry("pod-ready.stage.kwok.x-k8s.io/delay", "3000ms")
        .containsEntry("pod-ready.stage.kwok.x-k8s.io/jitter-delay", "3000ms")
        .containsEntry("pod-create.stage.kwok.x-k8s.io/delay", "0s");
  }
}

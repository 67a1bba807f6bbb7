package io.gpufleet.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpufleet.cost.model.ClusterNode;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GpuAccountingTest {
  static ClusterNode node(String type, Map<String, Integer> resources, Map<String, String> labels) {
    return new ClusterNode(
        "n1",
        "aws:///us-east-1a/i-1",
        "i-1",
        type,
        "us-east-1a",
        "on-demand",
        "pool",
        null,
        Instant.EPOCH,
        resources.getOrDefault("nvidia.com/gpu", 0),
        "nvidia.com/gpu",
        96_000,
        1L << 40,
        resources,
        labels);
  }

  @Test
  void shouldCountAMixedMigP5AsItsEightPhysicalGpus() {
    var n =
        node(
            "p5.48xlarge",
            Map.of("nvidia.com/mig-3g.40gb", 16),
            Map.of("nvidia.com/mig.strategy", "mixed"));
    var g = GpuAccounting.node(n, Map.of());
    assertThat(g.physical()).isEqualTo(8);
    assertThat(g.sharing()).isEqualTo("mig-mixed");
    assertThat(g.advertisedPhysical()).isEqualTo(8.0);
    assertThat(g.zeroAllocatable()).isFalse();
    assertThat(GpuAccounting.physicalGpus(Map.of("nvidia.com/mig-3g.40gb", 1.0), n, g))
        .isEqualTo(0.5);
  }

  @Test
  void shouldScaleAMixedBalancedLayoutBackToThePhysicalGpus() {
    // all-balanced on every H100: 2x 1g.10gb + 2g.20gb + 3g.40gb per GPU
    var n =
        node(
            "p5.48xlarge",
            Map.of(
                "nvidia.com/mig-1g.10gb",
                16,
                "nvidia.com/mig-2g.20gb",
                8,
                "nvidia.com/mig-3g.40gb",
                8),
            Map.of("nvidia.com/mig.strategy", "mixed"));
    var g = GpuAccounting.node(n, Map.of());
    assertThat(g.advertisedPhysical()).isCloseTo(8.0, within(1e-3));
    double all =
        GpuAccounting.physicalGpus(
            Map.of(
                "nvidia.com/mig-1g.10gb", 16.0,
                "nvidia.com/mig-2g.20gb", 8.0,
                "nvidia.com/mig-3g.40gb", 8.0),
            n,
            g);
    assertThat(all).isCloseTo(8.0, within(1e-9));
    assertThat(g.flags()).isEmpty();
  }

  @Test
  void shouldDivideTimeSlicedReplicasBackToPhysicalGpus() {
    var n =
        node(
            "g6e.12xlarge",
            Map.of("nvidia.com/gpu", 16),
            Map.of(
                "nvidia.com/gpu.replicas", "4",
                "nvidia.com/gpu.sharing-strategy", "time-slicing",
                "nvidia.com/gpu.count", "4"));
    var g = GpuAccounting.node(n, Map.of());
    assertThat(g.physical()).isEqualTo(4);
    assertThat(g.sharing()).isEqualTo("time-slicing");
    assertThat(g.replicas()).isEqualTo(4);
    assertThat(GpuAccounting.physicalGpus(Map.of("nvidia.com/gpu", 1.0), n, g)).isEqualTo(0.25);
  }

  @Test
  void shouldTakeReplicasFromTheConfiguredDevicePluginConfigWhenTheNodeHasNoReplicasLabel() {
    var n =
        node(
            "g6e.12xlarge",
            Map.of("nvidia.com/gpu.shared", 40),
            Map.of(
                "nvidia.com/device-plugin.config", "mps-10",
                "nvidia.com/gpu.sharing-strategy", "mps"));
    var g = GpuAccounting.node(n, Map.of("mps-10", 10));
    assertThat(g.replicas()).isEqualTo(10);
    assertThat(g.sharing()).isEqualTo("mps");
    assertThat(GpuAccounting.physicalGpus(Map.of("nvidia.com/gpu.shared", 2.0), n, g))
        .isEqualTo(0.2);
  }

  @Test
  void shouldPriceSingleStrategyMigDevicesByTheProfileInTheProductLabel() {
    var n =
        node(
            "p4d.24xlarge",
            Map.of("nvidia.com/gpu", 56),
            Map.of(
                "nvidia.com/mig.strategy", "single",
                "nvidia.com/gpu.product", "A100-SXM4-40GB-MIG-1g.5gb",
                "nvidia.com/gpu.count", "56"));
    var g = GpuAccounting.node(n, Map.of());
    assertThat(g.physical()).isEqualTo(8);
    assertThat(g.sharing()).isEqualTo("mig-single");
    assertThat(g.advertisedPhysical()).isCloseTo(8.0, within(1e-3));
    assertThat(GpuAccounting.physicalGpus(Map.of("nvidia.com/gpu", 7.0), n, g))
        .isCloseTo(1.0, within(1e-9));
  }

  @Test
  void shouldCountDraDevicesAsWholeGpusOrTheirMigFraction() {
    var n = node("p5.48xlarge", Map.of(ClusterNode.DRA_GPU, 8), Map.of());
    var g = GpuAccounting.node(n, Map.of());
    assertThat(g.sharing()).isEqualTo("dra");
    assertThat(g.physical()).isEqualTo(8);
    assertThat(
            GpuAccounting.physicalGpus(
                Map.of(ClusterNode.DRA_GPU, 2.0, ClusterNode.DRA_MIG + "3g.40gb", 1.0), n, g))
        .isEqualTo(2.5);
  }

  @Test
  void shouldFlagAGpuInstanceWithZeroAllocatableGpus() {
    var n = node("p4d.24xlarge", Map.of(), Map.of());
    var g = GpuAccounting.node(n, Map.of());
    assertThat(g.physical()).isEqualTo(8);
    assertThat(g.zeroAllocatable()).isTrue();
    assertThat(g.flags()).singleElement().asString().contains("0 allocatable GPUs");
  }

  @Test
  void shouldFlagMoreAdvertisedThanPhysicalWhenReplicasCannotBeKnown() {
    var n = node("g5.12xlarge", Map.of("nvidia.com/gpu", 6), Map.of());
    var g = GpuAccounting.node(n, Map.of());
    assertThat(g.physical()).isEqualTo(4);
    assertThat(g.flags()).singleElement().asString().contains("6.00 GPUs' worth for 4 physical");
  }
}

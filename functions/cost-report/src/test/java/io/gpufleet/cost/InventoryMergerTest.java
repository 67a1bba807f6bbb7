package io.gpufleet.cost;

import static io.gpufleet.cost.Fixtures.gpuNode;
import static io.gpufleet.cost.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InventoryMergerTest {
  static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");

  InventorySnapshot merge(
      List<ClusterNode> nodes,
      List<ClusterPod> pods,
      List<io.gpufleet.cost.model.Ec2Instance> ec2,
      InventorySnapshot prev,
      Instant now) {
    return InventoryMerger.merge(
        "c1", "us-east-1", now, nodes, pods, ec2, prev, Duration.ofDays(40));
  }

  @Test
  void shouldTakeTypeZoneLifecycleAndLaunchFromEc2AndPoolsFromTheNode() {
    var node = gpuNode("n1", "i-01", "g5.xlarge", 1, "on-demand", NOW.minusSeconds(60));
    var ec2 =
        instance("i-01", "g6e.12xlarge", Lifecycle.CAPACITY_BLOCK, NOW.minus(Duration.ofHours(5)));

    var s = merge(List.of(node), List.of(), List.of(ec2), InventorySnapshot.empty("c1"), NOW);

    var r = s.nodes().get(0);
    assertThat(r.instanceType()).isEqualTo("g6e.12xlarge");
    assertThat(r.lifecycle()).isEqualTo(Lifecycle.CAPACITY_BLOCK);
    assertThat(r.start()).isEqualTo(NOW.minus(Duration.ofHours(5)));
    assertThat(r.nodePool()).isEqualTo("gpu-pool");
    assertThat(r.ec2Matched()).isTrue();
    assertThat(r.inCluster()).isTrue();
  }

  @Test
  void shouldKeepATaggedInstanceThatNeverBecameANodeWithGpuCountsFromTheCatalog() {
    var ec2 = instance("i-09", "p5.48xlarge", Lifecycle.ON_DEMAND, NOW.minus(Duration.ofHours(1)));

    var s = merge(List.of(), List.of(), List.of(ec2), InventorySnapshot.empty("c1"), NOW);

    assertThat(s.nodes())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.inCluster()).isFalse();
              assertThat(r.accelerators()).isEqualTo(8);
              assertThat(r.end()).isNull();
            });
  }

  @Test
  void shouldCountNeuronCoresInDevicesOfTheNode() {
    var node =
        new ClusterNode(
            "inf",
            "aws:///us-east-1a/i-0inf",
            "i-0inf",
            "inf2.48xlarge",
            "us-east-1a",
            "on-demand",
            "neuron",
            null,
            NOW,
            12,
            "aws.amazon.com/neuron",
            192_000,
            768L << 30);
    var pod =
        new ClusterPod(
            "ml",
            "p",
            "u1",
            "inf",
            null,
            Map.of("aws.amazon.com/neuroncore", 4.0),
            1000,
            1L << 30,
            NOW,
            null);

    var s = merge(List.of(node), List.of(pod), List.of(), InventorySnapshot.empty("c1"), NOW);

    assertThat(s.pods().get(0).accelerators()).isEqualTo(2.0);
    assertThat(s.nodes().get(0).ec2Matched()).isFalse();
  }

  @Test
  void shouldDropWhatEndedBeforeTheRetention() {
    var first =
        merge(
            List.of(
                gpuNode(
                    "old", "i-0old", "g5.xlarge", 1, "on-demand", NOW.minus(Duration.ofDays(60)))),
            List.of(Fixtures.pod("ns", "p", "old", 1, NOW.minus(Duration.ofDays(60)))),
            List.of(),
            InventorySnapshot.empty("c1"),
            NOW.minus(Duration.ofDays(50)));

    var later = merge(List.of(), List.of(), List.of(), first, NOW);

    assertThat(first.nodes()).hasSize(1);
    assertThat(later.nodes()).isEmpty();
    assertThat(later.pods()).isEmpty();
  }

  @Test
  void shouldKeepFirstSeenAcrossRuns() {
    var node = gpuNode("n1", "i-01", "g5.xlarge", 1, "on-demand", NOW.minus(Duration.ofHours(3)));
    var first =
        merge(
            List.of(node),
            List.of(),
            List.of(),
            InventorySnapshot.empty("c1"),
            NOW.minus(Duration.ofHours(2)));

    var second = merge(List.of(node), List.of(), List.of(), first, NOW);

    assertThat(second.nodes().get(0).firstSeen()).isEqualTo(NOW.minus(Duration.ofHours(2)));
    assertThat(second.nodes().get(0).lastSeen()).isEqualTo(NOW);
  }
}

package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.NodePoolSpec.Requirement;
import io.gpufleet.preflight.model.PoolFinding;
import io.gpufleet.preflight.model.QuotaValue;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodePoolAnalyzerTest {
  final NodePoolAnalyzer analyzer = new NodePoolAnalyzer();

  static Map<QuotaBucket.Key, QuotaValue> quotas(Object... keyValue) {
    var out = new java.util.HashMap<QuotaBucket.Key, QuotaValue>();
    for (int i = 0; i < keyValue.length; i += 2) {
      var k = (QuotaBucket.Key) keyValue[i];
      out.put(
          k,
          new QuotaValue(
              k, "c", "n", ((Number) keyValue[i + 1]).doubleValue(), k.usageClass(), "name", true));
    }
    return out;
  }

  static QuotaBucket.Key key(QuotaBucket b, CapacityType t) {
    return new QuotaBucket.Key(b, t);
  }

  @Test
  void shouldDeriveTheAcceleratedCategoriesFromTheCatalog() {
    assertThat(NodePoolAnalyzer.ACCELERATED_CATEGORIES)
        .containsExactlyInAnyOrder("p", "g", "gr", "vt", "trn", "inf", "dl");
  }

  @Test
  void shouldWarnThatGAndPInOnePoolCanExhaustASmallGQuota() {
    // Given a pool allowing categories g and p, limited to 64 GPUs, on-demand (Karpenter's default)
    var pool =
        new NodePoolSpec(
            "gpu",
            Map.of("nvidia.com/gpu", "64"),
            List.of(
                new Requirement("karpenter.k8s.aws/instance-category", "In", List.of("g", "p")),
                new Requirement("karpenter.k8s.aws/instance-gpu-count", "Gt", List.of("0"))));

    var findings =
        analyzer.analyze(
            List.of(pool),
            quotas(
                key(QuotaBucket.G_VT, CapacityType.ON_DEMAND),
                64,
                key(QuotaBucket.P, CapacityType.ON_DEMAND),
                4096));

    assertThat(findings)
        .extracting(PoolFinding::message)
        .anySatisfy(
            m ->
                assertThat(m)
                    .startsWith(
                        "categories g and p share this pool while the G and VT On-Demand quota is only 64 vCPU"));
    // and the worst case of 64 GPUs on G types is far above 64 vCPU
    assertThat(findings)
        .extracting(PoolFinding::message)
        .anySatisfy(m -> assertThat(m).startsWith("can exceed the G and VT On-Demand quota"));
    // the GPU count requirement is there, so the limit does bound vCPU
    assertThat(findings)
        .extracting(PoolFinding::message)
        .noneMatch(m -> m.contains("does not bound vCPU"));
  }

  @Test
  void shouldComputeWorstCaseAsLimitTimesTheHighestVcpuPerGpuForEveryAllowedCapacityType() {
    var pool =
        new NodePoolSpec(
            "p5",
            Map.of("nvidia.com/gpu", "16"),
            List.of(
                new Requirement("karpenter.k8s.aws/instance-family", "In", List.of("p5")),
                new Requirement("karpenter.sh/capacity-type", "In", List.of("spot", "on-demand"))));

    var worst = analyzer.worstCase(pool);

    // p5.4xlarge has 16 vCPU for 1 GPU, p5.48xlarge 24 per GPU: 16 × 24 = 384
    assertThat(worst)
        .containsEntry(key(QuotaBucket.P, CapacityType.SPOT), 384.0)
        .containsEntry(key(QuotaBucket.P, CapacityType.ON_DEMAND), 384.0);
  }

  @Test
  void shouldWarnWhenAGpuLimitDoesNotBoundVcpu() {
    var pool =
        new NodePoolSpec(
            "loose",
            Map.of("nvidia.com/gpu", "8"),
            List.of(
                new Requirement(
                    "karpenter.k8s.aws/instance-category", "In", List.of("g", "c", "m"))));

    var findings = analyzer.analyze(List.of(pool), Map.of());

    assertThat(findings)
        .extracting(PoolFinding::message)
        .anySatisfy(m -> assertThat(m).contains("nvidia.com/gpu: 8 does not bound vCPU"));
  }

  @Test
  void shouldLetACpuLimitCapTheWorstCase() {
    var pool =
        new NodePoolSpec(
            "capped",
            Map.of("nvidia.com/gpu", "64", "cpu", "1000"),
            List.of(new Requirement("karpenter.k8s.aws/instance-category", "In", List.of("p"))));

    assertThat(analyzer.worstCase(pool))
        .containsEntry(key(QuotaBucket.P, CapacityType.ON_DEMAND), 1000.0);
    assertThat(analyzer.analyze(List.of(pool), Map.of()))
        .extracting(PoolFinding::message)
        .noneMatch(m -> m.contains("does not bound vCPU"));
  }
}

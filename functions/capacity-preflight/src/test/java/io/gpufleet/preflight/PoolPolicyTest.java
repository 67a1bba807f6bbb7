package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.NodePoolSpec.Requirement;
import io.gpufleet.preflight.model.PoolFinding;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Summed limits per quota bucket, the inference/training lint and the GPU-only test of pools. */
class PoolPolicyTest {
  final NodePoolAnalyzer analyzer = new NodePoolAnalyzer();

  static Requirement req(String key, String op, String values) {
    return new Requirement(key, op, values.isEmpty() ? List.of() : List.of(values.split(" ")));
  }

  static NodePoolSpec pool(
      String name,
      Map<String, String> limits,
      Map<String, String> labels,
      String policy,
      String after,
      Requirement... reqs) {
    return new NodePoolSpec(
        name, limits, List.of(reqs), labels, Map.of(), policy, after, "karpenter.k8s.aws");
  }

  static NodePoolSpec p5Spot(String name, String gpus) {
    return pool(
        name,
        Map.of("nvidia.com/gpu", gpus),
        Map.of(),
        "WhenEmpty",
        "10m",
        req(NodePoolAnalyzer.FAMILY, "In", "p5"),
        req(NodePoolAnalyzer.CAPACITY_TYPE, "In", "spot"));
  }

  @Test
  void shouldFlagPoolsWhoseSummedLimitsExceedTheQuotaTheyShareThoughEachFitsAlone() {
    // 16 GPUs x 24 vCPU per H100 = 384 vCPU each, 768 together against 512
    var findings =
        analyzer.analyze(
            List.of(p5Spot("a", "16"), p5Spot("b", "16")),
            NodePoolAnalyzerTest.quotas(
                NodePoolAnalyzerTest.key(QuotaBucket.P, CapacityType.SPOT), 512));

    assertThat(findings)
        .extracting(PoolFinding::nodePool, PoolFinding::severity, PoolFinding::message)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "a+b",
                "WARNING",
                "GPU limits summed over the pools sharing the P Spot quota can exceed it: a 384"
                    + " vCPU + b 384 vCPU = 768 vCPU worst case against a quota of 512 vCPU (each"
                    + " pool fits alone); lower the pools' GPU limits so they add up to at most"
                    + " 512 vCPU or raise the quota"));
  }

  @ParameterizedTest(name = "{0} + {1} GPUs against {2} vCPU -> flagged {3}")
  @CsvSource({"16,16,768,false", "16,16,767,true", "8,16,576,false", "1,1,47,true"})
  void shouldFlagTheSumOnlyWhenItExceedsTheQuota(
      String a, String b, double quota, boolean flagged) {
    var findings =
        analyzer.analyze(
            List.of(p5Spot("a", a), p5Spot("b", b)),
            NodePoolAnalyzerTest.quotas(
                NodePoolAnalyzerTest.key(QuotaBucket.P, CapacityType.SPOT), quota));

    assertThat(findings.stream().anyMatch(f -> f.nodePool().equals("a+b"))).isEqualTo(flagged);
  }

  @Test
  void shouldNotSumPoolsOfDifferentCapacityTypes() {
    var onDemand =
        pool(
            "od",
            Map.of("nvidia.com/gpu", "16"),
            Map.of(),
            "WhenEmpty",
            "10m",
            req(NodePoolAnalyzer.FAMILY, "In", "p5"));
    var findings =
        analyzer.analyze(
            List.of(p5Spot("spot", "16"), onDemand),
            NodePoolAnalyzerTest.quotas(
                NodePoolAnalyzerTest.key(QuotaBucket.P, CapacityType.SPOT), 400,
                NodePoolAnalyzerTest.key(QuotaBucket.P, CapacityType.ON_DEMAND), 400));

    assertThat(findings).extracting(PoolFinding::nodePool).doesNotContain("spot+od", "od+spot");
  }

  @ParameterizedTest(name = "{0}: {1} on {2}, {3} after {4} -> {5}")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          # name, role label, capacity types, policy, consolidateAfter, expected message start (- none)
          llm-inference-prod, -,         spot on-demand, WhenEmpty,                30m, production inference on Spot
          llm,                inference, on-demand,      WhenEmptyOrUnderutilized, 5m,  inference pool consolidates WhenEmptyOrUnderutilized after 5m
          llm-serving,        -,         on-demand,      -,                        -,   inference pool consolidates WhenEmptyOrUnderutilized after 0s (the default)
          llm-serving,        -,         on-demand,      WhenEmptyOrUnderutilized, 1h,  -
          llm-serving,        -,         on-demand,      WhenEmptyOrUnderutilized, Never, -
          llm-inference-dev,  -,         spot,           WhenEmpty,                5m,  -
          pretrain,           training,  spot,           WhenEmptyOrUnderutilized, 1h,  training pool consolidates WhenEmptyOrUnderutilized
          train-batch,        -,         spot,           WhenEmpty,                5m,  -
          gpu,                -,         spot,           WhenEmptyOrUnderutilized, 1m,  -
          """)
  void shouldLintInferenceAndTrainingPools(
      String name, String role, String capacity, String policy, String after, String expected) {
    var labels = new java.util.HashMap<String, String>();
    if (role != null) {
      labels.put(PoolLint.ROLE, role);
    }
    var p =
        pool(
            name,
            Map.of("nvidia.com/gpu", "8"),
            labels,
            policy,
            after,
            req(NodePoolAnalyzer.FAMILY, "In", "g6e"),
            req(NodePoolAnalyzer.CAPACITY_TYPE, "In", capacity));
    var findings = new ArrayList<PoolFinding>();

    PoolLint.lint(p, true, true, findings);

    if (expected == null) {
      assertThat(findings).isEmpty();
    } else {
      assertThat(findings)
          .singleElement()
          .extracting(PoolFinding::message)
          .asString()
          .startsWith(expected);
    }
  }

  @Test
  void shouldReadTheProductionMarkFromLabelsBeforeTheName() {
    var labelled =
        new NodePoolSpec(
            "inference-prod",
            Map.of(),
            List.of(),
            Map.of("environment", "staging"),
            Map.of(),
            null,
            null,
            null);
    var annotated =
        new NodePoolSpec(
            "inference",
            Map.of(),
            List.of(),
            Map.of(),
            Map.of(PoolLint.ENVIRONMENT, "production"),
            null,
            null,
            null);

    assertThat(PoolLint.production(labelled)).isFalse();
    assertThat(PoolLint.production(annotated)).isTrue();
  }

  @ParameterizedTest(name = "{0} {1} {2} -> GPU-only {3}")
  @CsvSource({
    "karpenter.k8s.aws/instance-category, In, p g, true",
    "karpenter.k8s.aws/instance-category, In, g m, false",
    "karpenter.k8s.aws/instance-family, In, p5 g6e trn2, true",
    "karpenter.k8s.aws/instance-family, In, g6e c7i, false",
    "node.kubernetes.io/instance-type, In, p5.48xlarge g6e.12xlarge, true",
    "node.kubernetes.io/instance-type, In, p5.48xlarge m7i.large, false",
    "karpenter.k8s.aws/instance-gpu-count, Gt, 0, true",
    "karpenter.k8s.aws/instance-gpu-name, Exists, '', true",
    "karpenter.k8s.aws/instance-gpu-manufacturer, In, nvidia, true",
    "karpenter.k8s.aws/instance-category, NotIn, t, false",
  })
  void shouldTellPoolsRestrictedToAcceleratedTypes(
      String key, String op, String values, boolean gpuOnly) {
    var p = pool("p", Map.of("nvidia.com/gpu", "8"), Map.of(), null, null, req(key, op, values));

    assertThat(NodePoolAnalyzer.isGpuPool(p)).isEqualTo(gpuOnly);
    var findings = analyzer.analyze(List.of(p), Map.of());
    assertThat(findings.stream().anyMatch(f -> f.message().contains("GPU-less types")))
        .isEqualTo(!gpuOnly);
  }

  @Test
  void shouldWarnWhenAGpuPoolHasNoGpuLimitEvenWithACpuLimit() {
    var p =
        pool(
            "gpu",
            Map.of("cpu", "1000"),
            Map.of(),
            "WhenEmpty",
            "30m",
            req(NodePoolAnalyzer.FAMILY, "In", "p5"));

    assertThat(analyzer.analyze(List.of(p), Map.of()))
        .extracting(PoolFinding::message)
        .anySatisfy(m -> assertThat(m).startsWith("GPU limit missing"));
  }
}

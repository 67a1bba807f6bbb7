package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.preflight.DraCheck.DraWorkload;
import io.gpufleet.preflight.DraCheck.Provisioners;
import io.gpufleet.preflight.DraCheck.Version;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.PoolFinding;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DraCheckTest {
  static final DraWorkload ON_GPU_POOL =
      new DraWorkload(
          "Deployment",
          "llm",
          "serving",
          List.of("template one-gpu"),
          Map.of("karpenter.sh/nodepool", "gpu"));

  static NodePoolSpec pool(String name, String group) {
    return new NodePoolSpec(
        name, Map.of("nvidia.com/gpu", "8"), List.of(), Map.of(), Map.of(), null, null, group);
  }

  static Optional<Version> v(String text) {
    return text == null || text.isBlank()
        ? Optional.empty()
        : Optional.of(Version.parse(text, "test"));
  }

  static Optional<Boolean> b(String text) {
    return text == null || text.isBlank() ? Optional.empty() : Optional.of(Boolean.valueOf(text));
  }

  @ParameterizedTest(name = "Karpenter {0} ignoreDRARequests={1} enableDRA={2} k8s={3} -> {4}")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          # karpenter, ignoreDRARequests, enableDRA, kubernetes, severity, reason in the message
          -,       -,     -,    -,    NO_GO,   ignoreDRARequests defaults to true
          1.6.0,   -,     -,    -,    NO_GO,   predates DRA
          1.6.0,   false, -,    -,    NO_GO,   predates DRA
          1.14.0,  -,     -,    1.34, NO_GO,   ignoreDRARequests defaults to true
          1.14.0,  true,  -,    1.34, NO_GO,   no setting here turns it off
          1.10.0,  false, -,    1.34, NO_GO,   has no DRA support even with the setting
          1.14.0,  false, -,    1.33, NO_GO,   before DRA's API went GA
          1.14.0,  false, -,    1.34, INFO,    DRA workload can be served
          1.15.0,  -,     true, 1.35, INFO,    DRA workload can be served
          -,       false, -,    -,    WARNING, its version is not given
          """)
  void shouldJudgeWhetherKarpenterServesClaims(
      String karpenter,
      String ignore,
      String enable,
      String kubernetes,
      String severity,
      String reason) {
    var check =
        new DraCheck(
            new Provisioners(
                v(karpenter),
                b(ignore),
                b(enable),
                v(kubernetes),
                Optional.empty(),
                Optional.empty()));

    var findings = check.check(List.of(ON_GPU_POOL), List.of(pool("gpu", "karpenter.k8s.aws")));

    assertThat(findings).hasSize(1);
    assertThat(findings.get(0).nodePool()).isEqualTo("Deployment llm/serving");
    assertThat(findings.get(0).severity()).isEqualTo(severity);
    assertThat(findings.get(0).message()).contains(reason);
  }

  @ParameterizedTest(name = "Auto Mode on Kubernetes {0} -> {1}")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          1.35, NO_GO,   ships the NVIDIA DRA driver only on Kubernetes 1.36+
          1.36, INFO,    EKS Auto Mode on Kubernetes 1.36
          -,    WARNING, the cluster's version is not given
          """)
  void shouldJudgeAutoModeByItsKubernetesVersion(
      String kubernetes, String severity, String reason) {
    var check =
        new DraCheck(
            new Provisioners(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                v(kubernetes),
                Optional.empty(),
                Optional.empty()));

    var findings = check.check(List.of(ON_GPU_POOL), List.of(pool("gpu", "eks.amazonaws.com")));

    assertThat(findings).singleElement().extracting(PoolFinding::severity).isEqualTo(severity);
    assertThat(findings.get(0).message()).contains(reason);
  }

  @ParameterizedTest(name = "Cluster Autoscaler {0} DRA flag={1} -> {2}")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          1.31, -,     NO_GO,   does not model DRA
          1.33, -,     WARNING, only with --enable-dynamic-resource-allocation=true
          1.33, false, NO_GO,   only with --enable-dynamic-resource-allocation=true
          1.34, true,  INFO,    models DRA
          1.35, -,     INFO,    keep the node group's minimum at 1
          -,    -,     WARNING, version not given
          """)
  void shouldJudgeNodeGroupsByTheClusterAutoscalerVersion(
      String ca, String flag, String severity, String reason) {
    var workload =
        new DraWorkload(
            "Job",
            "train",
            "finetune",
            List.of("claim gpus"),
            Map.of("eks.amazonaws.com/nodegroup", "gpu-ng"));
    var check =
        new DraCheck(
            new Provisioners(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(Version.of(1, 35)),
                v(ca),
                b(flag)));

    var findings = check.check(List.of(workload), List.of(pool("gpu", "karpenter.k8s.aws")));

    assertThat(findings).singleElement().extracting(PoolFinding::severity).isEqualTo(severity);
    assertThat(findings.get(0).message()).contains("node group gpu-ng").contains(reason);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"1.14.0,1,14", "v1.34,1,34", "1.36-eks-2f1a,1,36", "1.35.2+build,1,35"})
  void shouldReadVersionsByMajorAndMinor(String text, int major, int minor) {
    assertThat(Version.parse(text, "x")).isEqualTo(Version.of(major, minor));
  }

  @org.junit.jupiter.api.Test
  void shouldServeAnUnpinnedWorkloadWhenAnyCandidatePoolCan() {
    var unpinned = new DraWorkload("Pod", null, "p", List.of("claim c"), Map.of());
    var check =
        new DraCheck(
            new Provisioners(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(Version.of(1, 36)),
                Optional.empty(),
                Optional.empty()));

    var findings =
        check.check(
            List.of(unpinned),
            List.of(pool("karp", "karpenter.k8s.aws"), pool("auto", "eks.amazonaws.com")));

    assertThat(findings).singleElement().extracting(PoolFinding::severity).isEqualTo("INFO");
    assertThat(findings.get(0).message())
        .contains("NodePool karp: Karpenter (version not given) skips pods")
        .contains("NodePool auto: EKS Auto Mode on Kubernetes 1.36");
  }
}

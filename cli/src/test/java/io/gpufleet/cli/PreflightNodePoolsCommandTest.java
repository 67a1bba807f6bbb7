package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code gpufleet preflight --nodepools} on the sample files of deploy/nodepools, no cluster. */
class PreflightNodePoolsCommandTest extends CapturedCli {
  static final Path DIR = BudgetsCommandTest.root().resolve("deploy/nodepools");

  @Test
  void shouldFailTheReviewWhenADraWorkloadSitsOnAKarpenterPoolThatIgnoresClaims() {
    int code =
        run(
            "preflight",
            "--nodepools",
            DIR.resolve("dra-on-karpenter.yaml").toString(),
            "--karpenter-version",
            "1.14.0");

    assertThat(code).as("stderr: %s", errBytes).isEqualTo(1);
    assertThat(out())
        .contains("1 NodePools, 1 DRA workloads")
        .contains(
            "NO_GO Deployment llm/llm-serving: DRA workload will stay Pending: no pool that may"
                + " run it launches nodes for ResourceClaims (claims template one-gpu) — NodePool"
                + " gpu-inference-prod: Karpenter 1.14 skips pods with ResourceClaims")
        .contains("Verdict: NO_GO");
  }

  @Test
  void shouldPassTheSameWorkloadOnceKarpenterStopsIgnoringClaims() throws Exception {
    int code =
        run(
            "preflight",
            "--nodepools",
            DIR.resolve("dra-on-karpenter.yaml").toString(),
            "--karpenter-version",
            "1.14.0",
            "--karpenter-setting",
            "ignoreDRARequests=false",
            "--kubernetes-version",
            "1.34",
            "--json");

    JsonNode doc = Json.MAPPER.readTree(out());
    assertThat(code).isZero();
    assertThat(doc.path("verdict").asText()).isEqualTo("GO");
    assertThat(doc.path("findings").get(0).path("severity").asText()).isEqualTo("INFO");
  }

  @Test
  void shouldFlagPoolsWhoseLimitsTogetherExceedTheQuotaTheyShare() throws Exception {
    int code =
        run(
            "preflight",
            "--nodepools",
            DIR.resolve("summed-limits.yaml").toString(),
            "--quota",
            "p/spot=1536",
            "--json");

    JsonNode doc = Json.MAPPER.readTree(out());
    assertThat(code).isZero();
    assertThat(doc.path("verdict").asText()).isEqualTo("GO_WITH_WARNINGS");
    JsonNode bucket = doc.path("buckets").get(0);
    assertThat(bucket.path("quota").asText()).isEqualTo("P Spot");
    assertThat(bucket.path("total").asDouble()).isEqualTo(2304);
    assertThat(bucket.path("quotaVcpu").asDouble()).isEqualTo(1536);
    assertThat(doc.path("findings"))
        .extracting(f -> f.path("nodePool").asText() + " " + f.path("message").asText())
        .containsExactly(
            "training-a+training-b GPU limits summed over the pools sharing the P Spot quota can"
                + " exceed it: training-a 1,152 vCPU + training-b 1,152 vCPU = 2,304 vCPU worst"
                + " case against a quota of 1,536 vCPU (each pool fits alone); lower the pools'"
                + " GPU limits so they add up to at most 1,536 vCPU or raise the quota");
  }

  @Test
  void shouldSumWithoutComparingWhenNoQuotaIsGiven() {
    int code = run("preflight", "--nodepools", DIR.resolve("summed-limits.yaml").toString());

    assertThat(code).isZero();
    assertThat(out()).contains("P Spot").contains("2304").contains("no quotas given");
  }

  @Test
  void shouldRejectAMalformedQuotaWithExitTwo() {
    int code =
        run(
            "preflight",
            "--nodepools",
            DIR.resolve("summed-limits.yaml").toString(),
            "--quota",
            "p=384");

    assertThat(code).isEqualTo(2);
    assertThat(errBytes.toString(StandardCharsets.UTF_8))
        .contains("--quota 'p=384' must be BUCKET/CAPACITY=VCPU, like p/spot=384");
  }
}

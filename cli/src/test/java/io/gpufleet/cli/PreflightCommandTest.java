package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpufleet preflight} as a user meets it, against the simulated account. */
class PreflightCommandTest extends CapturedCli {
  @TempDir Path dir;

  Path plan(String yaml) throws Exception {
    Path p = dir.resolve("plan.yaml");
    Files.writeString(p, yaml);
    return p;
  }

  @Test
  void shouldRankRegionsShowProgressAndNodePoolWarnings() throws Exception {
    var plan =
        plan(
            """
            name: cli-test
            entries:
              - instanceType: g6e.12xlarge
                count: 2
                capacityType: on-demand
              - instanceType: p5.48xlarge
                count: 1
                capacityType: spot
            """);

    int code =
        run(
            "preflight",
            "--plan",
            plan.toString(),
            "--regions",
            "us-east-1,us-west-2,eu-west-1",
            "--simulate");

    assertThat(code).as("stderr: %s", err()).isZero();
    assertThat(err())
        .contains("us-east-1")
        .contains("us-west-2")
        .contains("eu-west-1")
        .contains("done");
    assertThat(out())
        .contains("Preflight of plan 'cli-test' (3 regions")
        .contains("VERDICT")
        .contains("Best region:");
    assertThat(out()).contains("categories g and p share this pool");
  }

  @Test
  void shouldPrintTheReportAsJson() throws Exception {
    var plan = plan("entries: [{instanceType: p5.48xlarge, count: 4, capacityType: spot}]\n");

    int code =
        run(
            "preflight",
            "--plan",
            plan.toString(),
            "--regions",
            "us-east-1",
            "--simulate",
            "--json");

    JsonNode report = Json.MAPPER.readTree(out());
    assertThat(report.path("regions").get(0).path("region").asText()).isEqualTo("us-east-1");
    assertThat(report.path("regions").get(0).path("verdict").asText()).isEqualTo("NO_GO");
    assertThat(report.path("regions").get(0).path("blockers").get(0).asText())
        .isEqualTo(
            "P Spot quota 384 vCPU, 336 in use, plan needs 768: short by 720 — request an increase to at least 1,104 (L-7212CCBC)");
    assertThat(code).isEqualTo(1);
  }

  @Test
  void shouldPriceOnDemandEntriesThroughThePricingApi() throws Exception {
    var plan = plan("entries: [{instanceType: g6e.12xlarge, count: 2, capacityType: on-demand}]\n");

    run("preflight", "--plan", plan.toString(), "--regions", "us-east-1", "--simulate", "--json");

    // the simulated account's Pricing API answers 48 vCPU x 0.12 = 5.76 USD/h in us-east-1
    JsonNode region = Json.MAPPER.readTree(out()).path("regions").get(0);
    assertThat(region.path("hourlyCost").asDouble()).isEqualTo(11.52);
    assertThat(region.path("costComplete").asBoolean()).isTrue();
  }

  @Test
  void shouldRejectABadPlanWithExitTwoBeforeAnyCall() throws Exception {
    var plan = plan("entries: [{instanceType: p5.48xlarge, count: 0, capacityType: spot}]\n");

    int code = run("preflight", "--plan", plan.toString(), "--regions", "us-east-1");

    assertThat(code).isEqualTo(2);
    assertThat(err()).contains("entries[0].count: must be at least 1, got 0");
    assertThat(out()).isEmpty();
  }

  @Test
  void shouldRejectAnUnknownRegionAndAMissingPlanFile() {
    assertThat(run("preflight", "--plan", dir.resolve("none.yaml").toString())).isEqualTo(2);
    assertThat(err()).contains("does not exist");
    assertThat(run("preflight", "--plan", "x", "--regions", "us-east-9")).isEqualTo(2);
  }

  @Test
  void shouldRunTheBenchmarkOnFewRegionsAndPrintOneJsonLineLast() {
    int code = run("bench", "preflight", "--regions", "3", "--latency-ms", "20");

    var lines = out().strip().lines().toList();
    JsonNode last = Json.MAPPER.valueToTree(parse(lines.get(lines.size() - 1)));
    assertThat(last.path("bench").asText()).isEqualTo("preflight");
    assertThat(last.path("regions").asInt()).isEqualTo(3);
    assertThat(last.path("speedup").isNumber()).isTrue();
    assertThat(last.path("verdicts")).isEqualTo(last.path("baselineVerdicts"));
    assertThat(code).isIn(0, 1);
  }

  private static JsonNode parse(String line) {
    try {
      return Json.MAPPER.readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + line, e);
    }
  }
}

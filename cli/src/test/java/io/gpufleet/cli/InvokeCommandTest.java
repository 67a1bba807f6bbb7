package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code gpufleet invoke FUNCTION FILE...} against the simulated account and cluster. */
class InvokeCommandTest extends CapturedCli {

  JsonNode json() throws Exception {
    return Json.MAPPER.readTree(outBytes.toString(StandardCharsets.UTF_8));
  }

  static String events(String name) {
    return MainTest.repositoryRoot().resolve("events").resolve(name).toString();
  }

  @Test
  void shouldRunEachFileOnAFreshClusterAndNameItInTheJsonRecord() throws Exception {
    Path broken = Files.createTempFile("gpufleet-invoke-", ".json");
    Files.writeString(broken, "not json");
    String spot = events("spot-interruption-warning-inference.json");

    int code =
        run("invoke", "interruption-drain", spot, spot, broken.toString(), "--json", "--rebase");

    assertThat(code).as(errBytes.toString(StandardCharsets.UTF_8)).isZero();
    var records = json();
    assertThat(records).hasSize(3);
    assertThat(records.get(0).path("file").asText()).isEqualTo(spot);
    assertThat(records.get(0).path("function").asText()).isEqualTo("interruption-drain");
    // the same event twice, each time on a fresh cluster: drained twice, no duplicate
    assertThat(records.get(0).path("outcome").get(0).path("status").asText()).isEqualTo("DRAINED");
    assertThat(records.get(1).path("outcome").get(0).path("status").asText()).isEqualTo("DRAINED");
    assertThat(records.get(2).path("outcome").get(0).path("status").asText()).isEqualTo("REJECTED");
    assertThat(records.get(2).path("outcome").get(0).path("message").asText())
        .startsWith("not JSON");
  }

  @Test
  void shouldShareOneClusterAcrossFilesWithShared() throws Exception {
    String spot = events("spot-interruption-warning-inference.json");

    int code = run("invoke", "drain", spot, spot, "--json", "--shared", "--rebase");

    assertThat(code).isZero();
    assertThat(json().get(1).path("outcome").get(0).path("status").asText()).isEqualTo("DUPLICATE");
  }

  @Test
  void shouldLetTheCostReportRejectWhatIsNotItsRequest() throws Exception {
    String stray =
        MainTest.repositoryRoot().resolve("events/corpus/stray/detail-only.json").toString();

    int code = run("invoke", "cost-report", stray, "--json");

    assertThat(code).isZero();
    assertThat(json().get(0).path("outcome").path("status").asText()).isEqualTo("REJECTED");
  }

  @Test
  void shouldRunAScheduleTickAndAPreflightAlarmThroughTheirHandlers() throws Exception {
    String policy =
        MainTest.repositoryRoot()
            .resolve("deploy/policy/disruption-schedule.example.yaml")
            .toString();
    int tick =
        run(
            "invoke",
            "disruption-schedule",
            events("schedule-tick-night.json"),
            "--json",
            "--policy",
            policy);
    var tickOutcome = json().get(0).path("outcome");
    outBytes.reset();
    int alarm = run("invoke", "capacity-preflight", events("quota-alarm-p-spot.json"), "--json");

    assertThat(tick).isZero();
    assertThat(tickOutcome.path("status").asText()).isEqualTo("RECONCILED");
    assertThat(alarm).isZero();
    assertThat(json().get(0).path("outcome").path("status").asText()).isEqualTo("HANDLED");
  }

  @Test
  void shouldPrintATableWithoutJson() {
    int code = run("invoke", "drain", events("capacity-reservation-interruption.json"), "--rebase");

    assertThat(code).isZero();
    assertThat(outBytes.toString(StandardCharsets.UTF_8))
        .contains("capacity-reservation-interruption")
        .containsPattern(
            "(DRAINED|PARTIAL) +capacity-reservation-interruption +i-0a1b2c3d4e5f60023");
  }

  @Test
  void shouldExitTwoForAnUnknownFunctionOrNoFile() {
    assertThat(run("invoke", "frobnicate", "x.json")).isEqualTo(2);
    assertThat(errBytes.toString(StandardCharsets.UTF_8))
        .contains("gpufleet invoke: unknown function 'frobnicate'");
    assertThat(run("invoke", "drain")).isEqualTo(2);
    assertThat(errBytes.toString(StandardCharsets.UTF_8))
        .contains("Missing required parameter: 'FILE");
  }

  @Test
  void shouldRefuseARealAccountForTheCostReport() {
    assertThat(run("invoke", "cost-report", "x.json", "--cluster", "prod")).isEqualTo(2);
    assertThat(errBytes.toString(StandardCharsets.UTF_8)).contains("gpufleet cost-report");
  }
}

package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.scenario.SimGpuExtras;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gpufleet cost-report's input checks and the cost part of gpufleet simulate. */
class CostCommandTest {
  final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
  final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
  @TempDir Path dir;

  PrintStream out() {
    return new PrintStream(outBytes, true, StandardCharsets.UTF_8);
  }

  PrintStream err() {
    return new PrintStream(errBytes, true, StandardCharsets.UTF_8);
  }

  int run(String... argv) {
    return Main.run(List.of(argv), out(), err());
  }

  String errText() {
    return errBytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void shouldRequireTheCluster() {
    assertThat(run("cost-report", "--out", dir.toString())).isEqualTo(2);
    assertThat(errText()).contains("Missing required option: '--cluster=NAME'");
  }

  @Test
  void shouldRejectABadWindowBeforeConnectingAnywhere() {
    int code =
        run(
            "cost-report",
            "--cluster",
            "c",
            "--out",
            dir.toString(),
            "--window",
            "fortnight",
            "--region",
            "us-east-1");

    assertThat(code).isEqualTo(2);
    assertThat(errText()).contains("report window 'fortnight'");
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void shouldRejectABadAllocationRule() {
    int code =
        run(
            "cost-report",
            "--cluster",
            "c",
            "--out",
            dir.toString(),
            "--allocation-rule",
            "weighted:gpu=2");

    assertThat(code).isEqualTo(2);
    assertThat(errText()).contains("weights add up to 2");
  }

  @Test
  void shouldWantKubeconfigWithContext() {
    int code =
        run(
            "cost-report",
            "--cluster",
            "c",
            "--out",
            dir.toString(),
            "--region",
            "us-east-1",
            "--context",
            "x");

    assertThat(code).isEqualTo(2);
    assertThat(errText()).contains("--context goes with --kubeconfig");
  }

  @Test
  void simulateWritesAReportOfTheDemoFleetWithoutCredentials() throws Exception {
    CostOutcome o = CostSimulation.run(out(), err(), false);

    assertThat(o.status()).isEqualTo(CostOutcome.Status.REPORTED);
    Path html = Path.of(o.outputs().get("html"));
    assertThat(html).exists();
    assertThat(Files.readString(html))
        .contains("<svg")
        .contains("chart-nodepool")
        .contains("gpu-training");
    assertThat(outBytes.toString(StandardCharsets.UTF_8)).contains("cost.html written to " + html);
    // eight demo nodes, a MIG, a time-sliced, a DRA and a capacity-reservation node, plus the one
    // earlier snapshots saw, one of them without an EC2 instance
    assertThat(o.nodes()).isEqualTo(13);
    assertThat(o.nodesWithoutEc2Match()).isEqualTo(1);
    // On-Demand p5s (one of them in a Capacity Reservation) under the Savings Plan, On-Demand
    // g6e.12xlarge under reservations
    assertThat(o.priceSources())
        .containsEntry("savings-plan (cost-explorer)", 4L)
        .containsEntry("reserved (cost-explorer)", 3L);
    assertThat(o.pricingApiCalls()).isEqualTo(4);
    assertThat(o.spotSavings().signum()).isPositive();
    var r = CostSimulation.LAST.get();
    assertThat(r.reconciliation().balanced()).isTrue();
    assertThat(r.gpuSharing())
        .extracting(g -> g.sharing())
        .contains("mig-mixed", "time-slicing", "dra");
    assertThat(r.kpis().commitmentSavings().signum()).isPositive();
    // the node in the On-Demand Capacity Reservation is billed at the On-Demand rate, which the
    // p5 Savings Plan discounts (80 % covered at 1162.45 / 2113.54 per On-Demand dollar)
    var odcr =
        r.nodes().stream()
            .filter(n -> SimGpuExtras.ODCR.name().equals(n.nodeName()))
            .findFirst()
            .orElseThrow();
    assertThat(odcr.capacityType()).isEqualTo("reserved");
    assertThat(odcr.pricingCategory()).isEqualTo("Standard");
    assertThat(odcr.priceSource()).isEqualTo("savings-plan (cost-explorer)");
    double cover = 2113.54 / 2641.92;
    double factor = 1 - cover + cover * (1162.45 / 2113.54);
    assertThat(odcr.effectivePerHour().doubleValue())
        .isCloseTo(
            odcr.onDemandPerHour().doubleValue() * factor,
            org.assertj.core.api.Assertions.within(1e-3));
    assertThat(odcr.commitmentSavings().signum()).isPositive();
    assertThat(outBytes.toString(StandardCharsets.UTF_8))
        .contains("RESERVATION NODE")
        .containsPattern(SimGpuExtras.ODCR.name() + " +p5.48xlarge .*Standard +savings-plan");
    assertThat(r.kpis().gpuUtilisationPercent()).isNotNull();
    assertThat(r.kpis().costPerMillionOutputTokens()).isNotNull();
    assertThat(r.nodes())
        .filteredOn(n -> n.nodeName() != null && n.nodeName().equals(SimGpuExtras.DRA.name()))
        .singleElement()
        .satisfies(n -> assertThat(n.gpuRequestedHours()).isPositive());
    assertThat(outBytes.toString(StandardCharsets.UTF_8))
        .contains("reconciliation")
        .contains("balanced")
        .contains("mig-mixed");
    assertThat(errText()).contains("priced 4/4");
    // the same run reports the stack's second cluster under its own key
    var research = o.clusters().get(1);
    assertThat(research.cluster()).isEqualTo(SimulateCommand.DrainSim.SECOND_CLUSTER);
    assertThat(research.status()).isEqualTo(CostOutcome.Status.REPORTED);
    assertThat(research.nodes()).isEqualTo(2);
    assertThat(research.outputs().get("html"))
        .contains("reports/" + SimulateCommand.DrainSim.SECOND_CLUSTER + "/");
    assertThat(Path.of(research.outputs().get("html"))).exists();
    assertThat(research.pricingApiCalls()).isZero();
    assertThat(outBytes.toString(StandardCharsets.UTF_8))
        .contains("cluster " + SimulateCommand.DrainSim.SECOND_CLUSTER + ":");
  }
}

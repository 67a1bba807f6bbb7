package io.gpufleet.cost;

import static io.gpufleet.cost.Fixtures.CLUSTER;
import static io.gpufleet.cost.Fixtures.gpuNode;
import static io.gpufleet.cost.Fixtures.instance;
import static io.gpufleet.cost.Fixtures.pod;
import static io.gpufleet.cost.Fixtures.terminated;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.store.MemoryBlobStore;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.sim.Recorders;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CostReportServiceTest {
  static final Instant DAY1 = Instant.parse("2026-11-29T00:00:00Z");
  static final Instant DAY2 = Instant.parse("2026-11-30T00:00:00Z");

  final VirtualTime time = new VirtualTime(DAY1);
  final java.time.Clock clock = time.clock();
  final Fixtures.FakeCluster cluster = new Fixtures.FakeCluster();
  final Fixtures.FakeEc2 ec2 = new Fixtures.FakeEc2();
  final Fixtures.FakeSpot spot = new Fixtures.FakeSpot();
  final MemoryBlobStore store = new MemoryBlobStore();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();
  final List<String> progress = new ArrayList<>();

  CostReportService service() {
    return new CostReportService(
        CostSettings.defaults(CLUSTER),
        Fixtures.REGION,
        cluster,
        ec2,
        spot,
        new StaticPrices(),
        store,
        CostReporting.reporter(metrics, publisher, notifier),
        clock);
  }

  CostOutcome snapshotAt(Instant t) {
    time.set(t);
    return service().run(new CostReportService.Request(null, null, true), progress::add);
  }

  CostOutcome reportAt(Instant t, String window) {
    time.set(t);
    return service().run(new CostReportService.Request(window, null, false), progress::add);
  }

  /** A short-lived g6e node between two daily runs, seen only by hourly snapshots. */
  void shortLivedNodeSeenHourly(boolean seenTerminated) {
    Instant launch = DAY1.plus(Duration.ofHours(9));
    cluster.nodes.add(gpuNode("short", "i-0short", "g6e.12xlarge", 4, "on-demand", launch));
    cluster.pods.add(pod("ml", "burst-0", "short", 4, launch.plusSeconds(60)));
    ec2.instances.add(instance("i-0short", "g6e.12xlarge", Lifecycle.ON_DEMAND, launch));
    snapshotAt(DAY1.plus(Duration.ofHours(10)));
    snapshotAt(DAY1.plus(Duration.ofHours(11)));
    cluster.nodes.clear();
    cluster.pods.clear();
    ec2.instances.clear();
    if (seenTerminated) {
      // within the hour after termination EC2 still lists it, with the stop time
      ec2.instances.add(
          terminated(
              "i-0short",
              "g6e.12xlarge",
              Lifecycle.ON_DEMAND,
              launch,
              DAY1.plus(Duration.ofHours(12))));
      snapshotAt(DAY1.plus(Duration.ofHours(12)).plusSeconds(1800));
      ec2.instances.clear();
    }
  }

  @Test
  void shouldCountANodeThatLivedBetweenTwoDailyRunsFromTheSnapshots() {
    shortLivedNodeSeenHourly(true);

    var o = reportAt(DAY2.plusSeconds(600), "last-day");
    var report = readReport(o);

    var node = nodeById(report, "i-0short");
    assertThat(node.hours()).isEqualTo(3.0);
    assertThat(node.endEstimated()).isFalse();
    // 3 h x g6e.12xlarge static price, all requested by the one pod (minus its first minute)
    assertThat(node.effectiveCost())
        .isEqualByComparingTo(
            new BigDecimal("10.49264")
                .multiply(BigDecimal.valueOf(3))
                .setScale(2, java.math.RoundingMode.HALF_EVEN));
    assertThat(o.status()).isEqualTo(CostOutcome.Status.REPORTED);
    assertThat(node.allocations())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.pod()).isEqualTo("burst-0");
              assertThat(a.effectiveCost().signum()).isPositive();
              assertThat(a.effectiveCost().add(node.idleCost()))
                  .isEqualByComparingTo(node.effectiveCost());
            });
  }

  @Test
  void shouldEndAVanishedNodeAtItsLastSightingWhenItsStopTimeIsUnknown() {
    shortLivedNodeSeenHourly(false);

    var report = readReport(reportAt(DAY2.plusSeconds(600), "last-day"));

    var node = nodeById(report, "i-0short");
    assertThat(node.hours()).isEqualTo(2.0);
    assertThat(node.endEstimated()).isTrue();
    assertThat(node.notes()).anyMatch(n -> n.contains("last time it was seen"));
    assertThat(report.kpis().nodesFromSnapshotOnly()).isEqualTo(1);
  }

  @Test
  void shouldReportANodeWithoutAnEc2MatchInsteadOfDroppingIt() {
    Instant t = DAY2.minus(Duration.ofHours(5));
    cluster.nodes.add(gpuNode("orphan", "i-0nomatch", "g5.xlarge", 1, "on-demand", t));
    cluster.pods.add(pod("web", "w-0", "orphan", 1, t));

    var o = reportAt(DAY2, "24h");
    var report = readReport(o);

    var node = nodeById(report, "i-0nomatch");
    assertThat(node.ec2Matched()).isFalse();
    assertThat(node.hours()).isEqualTo(5.0);
    assertThat(node.effectiveCost()).isEqualByComparingTo("5.03"); // 5 h x 1.006 (labels + static)
    assertThat(node.notes()).anyMatch(n -> n.contains("no EC2 instance matched"));
    assertThat(o.nodesWithoutEc2Match()).isEqualTo(1);
    assertThat(ec2.askedIds).anyMatch(ids -> ids.contains("i-0nomatch"));
  }

  @Test
  void shouldPriceSpotFromHistoryAndShowSavings() {
    Instant launch = DAY1;
    cluster.nodes.add(gpuNode("s1", "i-0spot", "p5.48xlarge", 8, "spot", launch));
    cluster.pods.add(pod("train", "t-0", "s1", 8, launch));
    ec2.instances.add(instance("i-0spot", "p5.48xlarge", Lifecycle.SPOT, launch));
    spot.price("us-east-1a", "p5.48xlarge", DAY1.minusSeconds(3600), "30");
    spot.price("us-east-1a", "p5.48xlarge", DAY1.plus(Duration.ofHours(12)), "40");

    var o = reportAt(DAY2, "last-day");
    var report = readReport(o);

    var node = nodeById(report, "i-0spot");
    assertThat(node.priceSource()).isEqualTo("spot-history");
    assertThat(node.effectiveCost()).isEqualByComparingTo("840.00"); // 12 h x 30 + 12 h x 40
    assertThat(node.listCost()).isEqualByComparingTo("1320.96"); // 24 h x 55.04
    assertThat(report.kpis().spotSavings()).isEqualByComparingTo("480.96");
    assertThat(report.kpis().spotShareOfNodeHours()).isEqualTo(1.0);
    assertThat(report.kpis().costPerGpuHour()).isEqualByComparingTo("4.375"); // 840 / 192
    assertThat(spot.asked).containsExactly(java.util.Set.of("p5.48xlarge"));
  }

  @Test
  void shouldWriteTheThreeOutputsAndReportTheOutcomeEverywhere() {
    Instant t = DAY1;
    cluster.nodes.add(gpuNode("n1", "i-01", "g6e.12xlarge", 4, "on-demand", t));
    cluster.pods.add(pod("ml", "p-0", "n1", 1, t));
    ec2.instances.add(instance("i-01", "g6e.12xlarge", Lifecycle.ON_DEMAND, t));

    var o = reportAt(DAY2, "last-day");

    String prefix = "reports/c1/last-day_20261129T0000Z_20261130T0000Z/";
    assertThat(store.keys())
        .contains(
            prefix + "cost.json",
            prefix + "cost.csv",
            prefix + "cost.html",
            "inventory/c1/snapshot.json");
    assertThat(store.contentType(prefix + "cost.html")).contains("text/html; charset=utf-8");
    assertThat(o.idleGpuPercent()).isEqualTo(75.0);
    assertThat(metrics.total("ReportsWritten")).isEqualTo(1);
    assertThat(metrics.total("IdleGpuPercent")).isEqualTo(75.0);
    assertThat(publisher.published)
        .singleElement()
        .satisfies(p -> assertThat(p.detailType()).isEqualTo("GPU Fleet Cost Report"));
    assertThat(notifier.sent)
        .singleElement()
        .satisfies(
            n ->
                assertThat(n.message()).contains("Idle GPU 75.0 %").contains(prefix + "cost.html"));
    assertThat(progress).anyMatch(s -> s.startsWith("  priced 1/1: g6e.12xlarge"));
  }

  @Test
  void shouldRejectABadWindowBeforeWritingAnything() {
    var o = reportAt(DAY2, "yesterday");

    assertThat(o.status()).isEqualTo(CostOutcome.Status.REJECTED);
    assertThat(o.message()).contains("'yesterday'");
    assertThat(store.keys()).isEmpty();
    assertThat(metrics.total("RunsRejected")).isEqualTo(1);
  }

  @Test
  void shouldUseOnDemandPricesAndSayWhyWhenSpotHistoryFails() {
    cluster.nodes.add(gpuNode("s1", "i-0spot", "g5.xlarge", 1, "spot", DAY1));
    ec2.instances.add(instance("i-0spot", "g5.xlarge", Lifecycle.SPOT, DAY1));
    spot.fail = true;

    var o = reportAt(DAY2, "last-day");

    var node = nodeById(readReport(o), "i-0spot");
    assertThat(node.priceSource()).isEqualTo("static");
    assertThat(node.notes()).anyMatch(n -> n.contains("no Spot price history"));
    assertThat(o.warnings()).anyMatch(w -> w.contains("Spot price history unavailable"));
  }

  @Test
  void shouldPriceAReservationNodeUnderItsCommitmentsAndNameEachCommitmentFallback() {
    // Given a g6e node in an On-Demand Capacity Reservation, half covered by Reserved Instances,
    // and a Cost Explorer answer that had no Savings Plans data
    cluster.nodes.add(gpuNode("r1", "i-0odcr", "g6e.12xlarge", 4, "reserved", DAY1));
    ec2.instances.add(instance("i-0odcr", "g6e.12xlarge", Lifecycle.RESERVED, DAY1));
    String fallback =
        "Savings Plans: Cost Explorer has no data (GetSavingsPlansCoverage answered"
            + " DataUnavailableException): none applied";
    CommitmentPort ce =
        w ->
            new io.gpufleet.cost.model.Commitments(
                io.gpufleet.cost.model.Commitments.COST_EXPLORER,
                java.util.Map.of(),
                1,
                java.util.Map.of(
                    "us-east-1/g6e.12xlarge",
                    new io.gpufleet.cost.model.Commitments.Coverage(0.5, "half")),
                0.6,
                java.util.Map.of(),
                List.of("Cost Explorer summary", fallback),
                List.of(fallback));
    time.set(DAY2);

    var o =
        new CostReportService(
                CostSettings.defaults(CLUSTER),
                Fixtures.REGION,
                cluster,
                ec2,
                spot,
                new StaticPrices(),
                store,
                CostReporting.reporter(metrics, publisher, notifier),
                clock,
                ce,
                UtilisationPort.none("off"))
            .run(new CostReportService.Request("last-day", null, false), progress::add);

    // Then it pays the On-Demand rate less the reservations' discount: half at 0.6 = 0.8 of list
    var node = nodeById(readReport(o), "i-0odcr");
    assertThat(node.priceSource()).isEqualTo("reserved (cost-explorer)");
    assertThat(node.pricingCategory()).isEqualTo("Standard");
    assertThat(node.effectivePerHour().doubleValue())
        .isCloseTo(
            node.onDemandPerHour().doubleValue() * 0.8,
            org.assertj.core.api.Assertions.within(1e-4));
    // and the run names the fallback among its warnings
    assertThat(o.warnings()).contains("commitments: " + fallback);
  }

  CostReport readReport(CostOutcome o) {
    String key = o.outputs().get("json").substring("memory:".length());
    try {
      return Json.MAPPER.readValue(store.get(key).orElseThrow(), CostReport.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static CostReport.NodeCost nodeById(CostReport r, String id) {
    return r.nodes().stream()
        .filter(n -> n.id().equals(id))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no node " + id + " in " + r.nodes()));
  }
}

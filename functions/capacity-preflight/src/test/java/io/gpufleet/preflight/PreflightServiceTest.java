package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.SpotScores;
import io.gpufleet.preflight.model.Verdict;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class PreflightServiceTest {
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T02:00:00Z"), ZoneOffset.UTC);
  final FakeAccount aws = new FakeAccount();

  PreflightService service(PreflightSettings settings) {
    return new PreflightService(aws, aws, aws, OnDemandPrices.none(), settings, CLOCK);
  }

  static Plan plan(List<String> regions) {
    return new Plan(
        "t",
        List.of(
            new PlanEntry("trainers", List.of("p5.48xlarge"), 2, CapacityType.SPOT, List.of()),
            new PlanEntry(
                "inference", List.of("g6e.12xlarge"), 2, CapacityType.ON_DEMAND, List.of())),
        regions,
        false);
  }

  void seed(String region) {
    aws.offer(region, "p5.48xlarge", "a", "b")
        .offer(region, "g6e.12xlarge", "a")
        .quota(region, QuotaBucket.P, CapacityType.SPOT, 1536)
        .quota(region, QuotaBucket.G_VT, CapacityType.ON_DEMAND, 1024)
        .usage(region, QuotaBucket.P, CapacityType.SPOT, 0)
        .spotPrice(region, "p5.48xlarge", "a", "30.50");
  }

  @Test
  void shouldJudgeEveryRegionAndAskForPlacementScoresOncePerSpotEntry() {
    var regions = List.of("us-east-1", "us-west-2", "eu-west-1");
    regions.forEach(this::seed);
    aws.scores.putAll(Map.of("us-east-1", 8, "us-west-2", 9, "eu-west-1", 7));

    var report = service(PreflightSettings.defaults()).run(plan(regions), List.of(), "test");

    assertThat(report.regions())
        .extracting(RegionResult::region)
        .containsExactly("us-west-2", "us-east-1", "eu-west-1");
    assertThat(report.regions()).allSatisfy(r -> assertThat(r.verdict()).isEqualTo(Verdict.GO));
    assertThat(aws.count("spotPlacementScores")).isEqualTo(1);
    assertThat(report.regions().get(0).hourlyCost()).isEqualByComparingTo("61.00");
    assertThat(report.regions().get(0).costComplete()).isFalse(); // On-Demand price unknown
  }

  @Test
  void shouldMarkAThrottledRegionUnknownAndStillCompleteTheOthers() {
    var regions = List.of("us-east-1", "us-west-2", "eu-west-1");
    regions.forEach(this::seed);
    aws.fail(
        "us-west-2",
        "quotas",
        new IllegalStateException(
            "Rate exceeded (Service: ServiceQuotas, Status Code: 400, ThrottlingException)"));

    var report = service(PreflightSettings.defaults()).run(plan(regions), List.of(), "test");

    var west =
        report.regions().stream()
            .filter(r -> r.region().equals("us-west-2"))
            .findFirst()
            .orElseThrow();
    assertThat(west.verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(west.blockers())
        .singleElement()
        .satisfies(b -> assertThat(b).startsWith("ListServiceQuotas failed: Rate exceeded"));
    assertThat(report.regions()).filteredOn(r -> r.verdict() == Verdict.GO).hasSize(2);
    assertThat(report.regions().get(2).region()).isEqualTo("us-west-2");
  }

  @Test
  void shouldMarkARegionThatTimesOutUnknownWithoutWaitingForIt() {
    var regions = List.of("us-east-1", "ap-south-1");
    regions.forEach(this::seed);
    aws.hang("ap-south-1", "offerings");

    var settings = PreflightSettings.defaults().withRegionTimeout(Duration.ofMillis(300));
    long t0 = System.nanoTime();
    var report = service(settings).run(plan(regions), List.of(), "test");
    long ms = (System.nanoTime() - t0) / 1_000_000;

    assertThat(report.regions())
        .extracting(RegionResult::verdict)
        .containsExactly(Verdict.GO, Verdict.UNKNOWN);
    assertThat(report.regions().get(1).blockers()).containsExactly("timed out after 0.3 s");
    assertThat(ms).isLessThan(5_000);
  }

  @Test
  void shouldKeepOptionalReadFailuresAsNotes() {
    seed("us-east-1");
    aws.fail("us-east-1", "spotPrices", new IllegalStateException("AccessDenied"));

    var report =
        service(PreflightSettings.defaults()).run(plan(List.of("us-east-1")), List.of(), "test");

    var r = report.regions().get(0);
    assertThat(r.verdict()).isEqualTo(Verdict.GO);
    assertThat(r.notes())
        .anySatisfy(
            n ->
                assertThat(n)
                    .contains("Spot prices (DescribeSpotPriceHistory) unavailable: AccessDenied"));
    assertThat(r.hourlyCost()).isNull();
  }

  @Test
  void shouldTreatAnUnknownPlacementScoreAsANoteNotAFailure() {
    seed("us-east-1");
    aws.scoreAnswer = SpotScores.unknown("score unknown: MaxConfigLimitExceeded");

    var report =
        service(PreflightSettings.defaults()).run(plan(List.of("us-east-1")), List.of(), "test");

    assertThat(report.regions().get(0).verdict()).isEqualTo(Verdict.GO);
    assertThat(report.regions().get(0).notes())
        .anySatisfy(n -> assertThat(n).contains("MaxConfigLimitExceeded"));
  }

  @Test
  void shouldReadRegionsConcurrentlyAndBoundTheCallsInFlight() {
    var regions =
        List.of("us-east-1", "us-east-2", "us-west-1", "us-west-2", "eu-west-1", "eu-central-1");
    regions.forEach(this::seed);
    var started = new CopyOnWriteArrayList<String>();
    var progress =
        new PreflightService.Progress() {
          @Override
          public void started(String region) {
            started.add(region);
          }

          @Override
          public void read(String region, long ms, java.util.Optional<String> problem) {}
        };

    var report =
        service(PreflightSettings.defaults().withConcurrency(2, 2))
            .run(plan(regions), List.of(), "t", progress);

    assertThat(report.regions()).hasSize(6);
    assertThat(started).containsExactlyInAnyOrderElementsOf(regions);
    // two regions at a time, two calls each
    assertThat(aws.maxInFlight.get()).isLessThanOrEqualTo(4);
  }

  @Test
  void shouldDropRegionsOfferingNothingWhenThePlanAsksForAllRegions() {
    seed("us-east-1");
    var all = new Plan("t", plan(List.of()).entries(), List.of(), true);
    var settings =
        new PreflightSettings(
            java.util.Optional.empty(),
            java.util.Optional.empty(),
            List.of("us-east-1", "sa-east-1"),
            17,
            8,
            Duration.ofSeconds(5),
            80,
            3,
            24,
            java.util.Optional.empty(),
            "p/",
            false,
            0,
            2);

    var report = service(settings).run(all, List.of(), "t");

    assertThat(report.regions()).extracting(RegionResult::region).containsExactly("us-east-1");
    assertThat(report.notes())
        .anySatisfy(n -> assertThat(n).startsWith("sa-east-1: offers none of"));
  }
}

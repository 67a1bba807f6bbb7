package io.gpufleet.preflight.aws;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.catalog.Regions;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.preflight.PlanParser;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.model.EntryChoice;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.wiring.PreflightWiring;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimCapacityAccount;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * End to end through the preflight: a {@code regions: all} plan with Spot entries gets a real
 * placement score in every default region, from a stub that (like AWS) refuses more than 10
 * RegionNames per GetSpotPlacementScores call, with every request checked against the EC2 model.
 */
class SpotScoresAcrossAllRegionsTest {
  static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");
  static final String PLAN =
      """
      name: all-regions-spot
      regions: all
      entries:
        - name: trainers
          instanceTypes: [p5.48xlarge, p5e.48xlarge, p4d.24xlarge]
          count: 2
          capacityType: spot
        - name: inference
          instanceTypes: [g6e.12xlarge]
          count: 2
          capacityType: spot
      """;

  AwsStubServer stub;
  RegionalClients clients;
  final Map<String, Integer> seeded = new HashMap<>();

  @BeforeEach
  void start() {
    stub = AwsStubServer.start();
    var account = new SimCapacityAccount(stub).now(NOW).install();
    account.seedDemo(Regions.DEFAULT_ENABLED);
    // a distinct score per region, 17 regions: more than one call can carry
    for (int i = 0; i < Regions.DEFAULT_ENABLED.size(); i++) {
      String region = Regions.DEFAULT_ENABLED.get(i);
      int score = 1 + (i * 7) % 10;
      account.region(region).spotScore(score);
      seeded.put(region, score);
    }
    clients = StubAccount.clients(stub);
  }

  @AfterEach
  void stop() {
    clients.close();
    stub.close();
  }

  private PreflightReport run() {
    var plan = PlanParser.parse(PLAN, "test");
    return PreflightWiring.service(
            clients,
            "us-east-1",
            OnDemandPrices.none(),
            // a generous region timeout: 17 regions on a busy 2-core machine must not turn UNKNOWN
            PreflightSettings.defaults().withRegionTimeout(java.time.Duration.ofMinutes(2)),
            Clock.fixed(NOW, ZoneOffset.UTC))
        .run(plan, List.of(), "test");
  }

  @Test
  void shouldScoreEverySeventeenDefaultRegionsInCallsOfAtMostTenRegions() {
    long validatedBefore = ContractViolations.validatedRequests();

    var report = run();

    // Then every region that offers a type has the score the account holds, for both entries
    assertThat(report.regions()).hasSize(Regions.DEFAULT_ENABLED.size());
    for (RegionResult r : report.regions()) {
      assertThat(r.choices())
          .as(r.region())
          .extracting(EntryChoice::spotScore)
          .containsOnly(seeded.get(r.region()));
      assertThat(r.notes()).noneMatch(n -> n.contains("Spot placement score unknown"));
      assertThat(r.notes()).noneMatch(n -> n.contains("no Spot placement score returned"));
    }
    // and each entry was scored in two calls (9 + 8 regions) that together cover all 17
    var calls = stub.calls("GetSpotPlacementScores");
    assertThat(calls).hasSize(4);
    var regionLists = new ArrayList<List<String>>();
    calls.forEach(c -> regionLists.add(AwsStubServer.listParam(c, "RegionName")));
    assertThat(regionLists).allSatisfy(l -> assertThat(l).hasSizeLessThanOrEqualTo(10));
    assertThat(regionLists.stream().flatMap(List::stream))
        .hasSize(2 * 17)
        .containsOnlyElementsOf(Regions.DEFAULT_ENABLED);
    // and the EC2 model checked every one of those requests (the extension fails on a violation)
    assertThat(ContractViolations.validatedRequests() - validatedBefore)
        .isGreaterThanOrEqualTo(stub.calls().size());
  }

  @Test
  void shouldWarnThatASpotEntryWithFewerThanThreeTypesAlwaysScoresLow() {
    var report = run();

    assertThat(report.notes())
        .filteredOn(n -> n.startsWith("warning: Spot entry"))
        .singleElement()
        .satisfies(
            w ->
                assertThat(w)
                    .startsWith("warning: Spot entry 'inference' lists 1 instance type:")
                    .contains("fewer than 3 types a low Spot placement score"));
    // and where its score is low, the region's warning says why
    assertThat(report.regions())
        .flatExtracting(RegionResult::warnings)
        .filteredOn(w -> w.contains("for 'inference'"))
        .isNotEmpty()
        .allSatisfy(w -> assertThat(w).contains("with fewer than 3 instance types AWS always"));
    assertThat(report.regions())
        .flatExtracting(RegionResult::warnings)
        .filteredOn(w -> w.contains("for 'trainers'"))
        .noneMatch(w -> w.contains("fewer than 3"));
  }

  @Test
  void shouldKeepTheScoresOfTheChunkThatAnsweredWhenTheOtherHitsTheConfigurationCap() {
    // Given the second configuration of the day (AWS caps new ones per 24 h) is refused
    stub.failNext("GetSpotPlacementScores", 1, 400, "MaxConfigLimitExceeded");

    var report = run();

    // Then the regions of the refused chunk say why their score is unknown; the rest are scored
    var unknown =
        report.regions().stream()
            .filter(
                r ->
                    r.notes().stream()
                        .anyMatch(
                            n ->
                                n.startsWith("Spot placement score unknown for")
                                    && n.contains("MaxConfigLimitExceeded")))
            .toList();
    assertThat(unknown).hasSizeBetween(8, 9);
    assertThat(report.regions())
        .filteredOn(r -> !unknown.contains(r))
        .allSatisfy(
            r ->
                assertThat(r.choices())
                    .extracting(EntryChoice::spotScore)
                    .contains(seeded.get(r.region())));
  }
}

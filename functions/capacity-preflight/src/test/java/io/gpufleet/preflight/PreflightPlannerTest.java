package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.QuotaValue;
import io.gpufleet.preflight.model.RegionFacts;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.SpotScores;
import io.gpufleet.preflight.model.Verdict;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PreflightPlannerTest {
  static final QuotaBucket.Key P_SPOT = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);
  static final QuotaBucket.Key G_OD = new QuotaBucket.Key(QuotaBucket.G_VT, CapacityType.ON_DEMAND);
  final PreflightPlanner planner = PreflightPlanner.defaults();

  /** Facts of one region, built up per test. */
  static final class Facts {
    final String region;
    final Map<String, Set<String>> offered = new HashMap<>();
    final Map<QuotaBucket.Key, QuotaValue> quotas = new HashMap<>();
    final Map<QuotaBucket.Key, Double> usage = new HashMap<>();
    final Map<String, Map<String, BigDecimal>> spot = new HashMap<>();
    final Map<String, HourlyPrice> od = new HashMap<>();

    Facts(String region) {
      this.region = region;
    }

    Facts offer(String type, String... zones) {
      offered.put(type, Set.of(zones));
      return this;
    }

    Facts quota(QuotaBucket.Key key, double value, double used) {
      quotas.put(
          key,
          new QuotaValue(
              key,
              key.bucket().fallbackQuotaCode(key.capacityType()).get(),
              "n",
              value,
              key.usageClass(),
              "name",
              true));
      usage.put(key, used);
      return this;
    }

    RegionFacts build() {
      var specs = new HashMap<String, io.gpufleet.core.catalog.InstanceSpec>();
      offered.keySet().forEach(t -> specs.put(t, InstanceCatalog.find(t).orElseThrow()));
      return new RegionFacts(
          region, specs, offered, quotas, usage, spot, od, Map.of(), Map.of(), List.of());
    }
  }

  static Plan plan(PlanEntry... entries) {
    return new Plan("t", List.of(entries), List.of("us-east-1"), false);
  }

  static PlanEntry entry(String name, int count, CapacityType ct, String... types) {
    return new PlanEntry(name, List.of(types), count, ct, List.of());
  }

  @Test
  void shouldCountFourP5SpotAs768VcpuAgainstPSpotAndSayByHowMuchItIsShort() {
    // Given a P Spot quota of 384 vCPU with 192 in use
    var facts = new Facts("us-east-1").offer("p5.48xlarge", "us-east-1a").quota(P_SPOT, 384, 192);

    // When 4 × p5.48xlarge Spot are planned
    RegionResult r =
        planner.evaluate(
            plan(entry("trainers", 4, CapacityType.SPOT, "p5.48xlarge")),
            facts.build(),
            Map.of(),
            0);

    // Then
    assertThat(r.verdict()).isEqualTo(Verdict.NO_GO);
    assertThat(r.quotas())
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.key()).isEqualTo(P_SPOT);
              assertThat(q.need()).isEqualTo(768);
              assertThat(q.headroom()).isEqualTo(-576);
            });
    assertThat(r.blockers())
        .containsExactly(
            "P Spot quota 384 vCPU, 192 in use, plan needs 768: short by 576 — request an"
                + " increase to at least 960 (L-7212CCBC)");
  }

  static final QuotaBucket.Key P_OD = new QuotaBucket.Key(QuotaBucket.P, CapacityType.ON_DEMAND);

  @Test
  void shouldOfferAnOnDemandFallbackWhenSpotIsShortButOnDemandHasRoom() {
    // Given P Spot is short (384, 192 used) and P On-Demand has 1152 free with 192 in use
    var facts =
        new Facts("us-east-1")
            .offer("p5.48xlarge", "us-east-1a")
            .quota(P_SPOT, 384, 192)
            .quota(P_OD, 1152, 192);

    // When 4 × p5.48xlarge Spot (768 vCPU) are planned
    RegionResult r =
        planner.evaluate(
            plan(entry("trainers", 4, CapacityType.SPOT, "p5.48xlarge")),
            facts.build(),
            Map.of(),
            0);

    // Then the verdict stays NO_GO (the plan asked for Spot) and the fallback is stated
    assertThat(r.verdict()).isEqualTo(Verdict.NO_GO);
    assertThat(r.notes())
        .contains(
            "On-Demand fallback: the 768 vCPU that do not fit P Spot would fit P On-Demand (960"
                + " free after the plan's On-Demand entries, 192 left)");
  }

  @Test
  void shouldSayWhenOnDemandCannotTakeTheSpotShortfallEither() {
    // Given both quotas are short, and the plan's own On-Demand entry already uses P On-Demand
    var facts =
        new Facts("us-east-1")
            .offer("p5.48xlarge", "us-east-1a")
            .quota(P_SPOT, 384, 192)
            .quota(P_OD, 960, 0);

    RegionResult r =
        planner.evaluate(
            plan(
                entry("trainers", 4, CapacityType.SPOT, "p5.48xlarge"),
                entry("steady", 2, CapacityType.ON_DEMAND, "p5.48xlarge")),
            facts.build(),
            Map.of(),
            0);

    assertThat(r.notes())
        .contains(
            "On-Demand fallback: P On-Demand cannot take the 768 vCPU either (576 free after the"
                + " plan's On-Demand entries)");
  }

  @Test
  void shouldAddNoFallbackLineWhenSpotFits() {
    var facts =
        new Facts("us-east-1")
            .offer("p5.48xlarge", "us-east-1a")
            .quota(P_SPOT, 1536, 0)
            .quota(P_OD, 1536, 0);

    RegionResult r =
        planner.evaluate(
            plan(entry("trainers", 4, CapacityType.SPOT, "p5.48xlarge")),
            facts.build(),
            Map.of(),
            0);

    assertThat(r.notes()).noneMatch(n -> n.startsWith("On-Demand fallback"));
  }

  @Test
  void shouldCountEightG6e12xlargeOnDemandAs384VcpuAgainstGAndVtOnDemand() {
    var facts = new Facts("us-west-2").offer("g6e.12xlarge", "us-west-2a").quota(G_OD, 448, 0);

    var r =
        planner.evaluate(
            plan(entry("inference", 8, CapacityType.ON_DEMAND, "g6e.12xlarge")),
            facts.build(),
            Map.of(),
            0);

    assertThat(r.quotas())
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.key()).isEqualTo(G_OD);
              assertThat(q.need()).isEqualTo(384);
              assertThat(q.headroom()).isEqualTo(64);
            });
    // 384 of 448 is 86 %: above the 80 % alarm threshold
    assertThat(r.verdict()).isEqualTo(Verdict.GO_WITH_WARNINGS);
    assertThat(r.warnings())
        .anySatisfy(w -> assertThat(w).startsWith("G and VT On-Demand would be at 86%"));
  }

  @Test
  void shouldBeGoWhenEverythingFitsWithRoomToSpareAndPriceThePlan() {
    var facts =
        new Facts("us-east-2")
            .offer("g6e.12xlarge", "us-east-2a", "us-east-2b")
            .quota(G_OD, 1024, 0);
    facts.od.put(
        "g6e.12xlarge",
        new HourlyPrice(
            "us-east-2",
            "g6e.12xlarge",
            new BigDecimal("10.4926"),
            "USD",
            PriceSource.STATIC,
            Optional.empty()));

    var r =
        planner.evaluate(
            plan(entry("inference", 8, CapacityType.ON_DEMAND, "g6e.12xlarge")),
            facts.build(),
            Map.of(),
            0);

    assertThat(r.verdict()).isEqualTo(Verdict.GO);
    assertThat(r.blockers()).isEmpty();
    assertThat(r.warnings()).isEmpty();
    assertThat(r.hourlyCost()).isEqualByComparingTo("83.9408");
    assertThat(r.costComplete()).isTrue();
    assertThat(r.choices().get(0).zones()).containsExactly("us-east-2a", "us-east-2b");
  }

  @Test
  void shouldBeNoGoWhenNoTypeOfAnEntryIsOffered() {
    var facts = new Facts("eu-west-3").quota(P_SPOT, 1000, 0);

    var r =
        planner.evaluate(
            plan(entry("trainers", 2, CapacityType.SPOT, "p5.48xlarge", "p5e.48xlarge")),
            facts.build(),
            Map.of(),
            0);

    assertThat(r.verdict()).isEqualTo(Verdict.NO_GO);
    assertThat(r.blockers())
        .containsExactly(
            "none of [p5.48xlarge, p5e.48xlarge] is offered in eu-west-3 (needed by 'trainers')");
  }

  @Test
  void shouldPickTheFirstTypeOfAnAnyOfThatStillFitsItsQuota() {
    // Given p5 would not fit P On-Demand but trn1 fits Trn
    var pOd = new QuotaBucket.Key(QuotaBucket.P, CapacityType.ON_DEMAND);
    var trnOd = new QuotaBucket.Key(QuotaBucket.TRN, CapacityType.ON_DEMAND);
    var facts =
        new Facts("us-east-1")
            .offer("p5.48xlarge", "us-east-1a")
            .offer("trn1.32xlarge", "us-east-1b")
            .quota(pOd, 192, 0)
            .quota(trnOd, 512, 0);

    var r =
        planner.evaluate(
            plan(entry("train", 2, CapacityType.ON_DEMAND, "p5.48xlarge", "trn1.32xlarge")),
            facts.build(),
            Map.of(),
            0);

    assertThat(r.choices())
        .singleElement()
        .satisfies(c -> assertThat(c.instanceType()).isEqualTo("trn1.32xlarge"));
    assertThat(r.quotas()).singleElement().satisfies(q -> assertThat(q.key()).isEqualTo(trnOd));
  }

  @Test
  void shouldWarnOnALowSpotScoreAndNoteAnUnknownOne() {
    var facts = new Facts("us-east-1").offer("p5.48xlarge", "us-east-1a").quota(P_SPOT, 4096, 0);
    var p = plan(entry("trainers", 4, CapacityType.SPOT, "p5.48xlarge"));

    var low =
        planner.evaluate(
            p, facts.build(), Map.of("trainers", SpotScores.of(Map.of("us-east-1", 2))), 0);
    var unknown =
        planner.evaluate(
            p,
            facts.build(),
            Map.of("trainers", SpotScores.unknown("score unknown: MaxConfigLimitExceeded")),
            0);

    assertThat(low.verdict()).isEqualTo(Verdict.GO_WITH_WARNINGS);
    assertThat(low.spotScore()).isEqualTo(2);
    assertThat(low.warnings()).anySatisfy(w -> assertThat(w).contains("Spot placement score 2/10"));
    assertThat(unknown.verdict()).isEqualTo(Verdict.GO);
    assertThat(unknown.spotScore()).isNull();
    assertThat(unknown.notes()).anySatisfy(n -> assertThat(n).contains("MaxConfigLimitExceeded"));
  }

  @Test
  void shouldHonourAnAvailabilityZoneConstraint() {
    var facts = new Facts("us-east-1").offer("p5.48xlarge", "us-east-1a").quota(P_SPOT, 4096, 0);
    var entry =
        new PlanEntry(
            "pinned", List.of("p5.48xlarge"), 1, CapacityType.SPOT, List.of("us-east-1c"));
    var elsewhere =
        new PlanEntry(
            "pinned", List.of("p5.48xlarge"), 1, CapacityType.SPOT, List.of("us-west-2a"));

    var r = planner.evaluate(plan(entry), facts.build(), Map.of(), 0);
    var other = planner.evaluate(plan(elsewhere), facts.build(), Map.of(), 0);

    assertThat(r.blockers())
        .containsExactly("p5.48xlarge is not offered in zones [us-east-1c] (needed by 'pinned')");
    assertThat(other.blockers())
        .singleElement()
        .satisfies(b -> assertThat(b).contains("none of them in us-east-1"));
  }

  @Test
  void shouldTakeTheCheapestSpotPriceAmongUsableZones() {
    var facts =
        new Facts("us-east-1")
            .offer("g6e.12xlarge", "us-east-1a", "us-east-1b")
            .quota(new QuotaBucket.Key(QuotaBucket.G_VT, CapacityType.SPOT), 1024, 0);
    facts.spot.put(
        "g6e.12xlarge",
        Map.of(
            "us-east-1a",
            new BigDecimal("4.00"),
            "us-east-1b",
            new BigDecimal("3.50"),
            "us-east-1f",
            new BigDecimal("1.00")));

    var r =
        planner.evaluate(
            plan(entry("inf", 2, CapacityType.SPOT, "g6e.12xlarge")), facts.build(), Map.of(), 0);

    assertThat(r.hourlyCost()).isEqualByComparingTo("7.00");
    assertThat(r.choices().get(0).priceSource()).isEqualTo("spot-history");
  }

  @Test
  void shouldRankFitsThenScoreThenCostThenUnknownLast() {
    var go1 = result("us-east-2", Verdict.GO, 5, "10");
    var go2 = result("us-west-2", Verdict.GO, 9, "20");
    var go3 = result("eu-west-1", Verdict.GO, 9, "15");
    var warn = result("ap-south-1", Verdict.GO_WITH_WARNINGS, 10, "1");
    var nogo = result("sa-east-1", Verdict.NO_GO, 10, "1");
    var unknown = RegionResult.unknown("eu-north-1", "timed out", 0);

    var ranked = RegionRanking.rank(List.of(unknown, nogo, warn, go1, go2, go3));

    assertThat(ranked)
        .extracting(RegionResult::region)
        .containsExactly(
            "eu-west-1", "us-west-2", "us-east-2", "ap-south-1", "sa-east-1", "eu-north-1");
    assertThat(ranked).extracting(RegionResult::rank).containsExactly(1, 2, 3, 4, 5, 6);
  }

  private static RegionResult result(String region, Verdict v, Integer score, String cost) {
    return new RegionResult(
        0,
        region,
        v,
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        score,
        new BigDecimal(cost),
        "USD",
        true,
        0);
  }
}

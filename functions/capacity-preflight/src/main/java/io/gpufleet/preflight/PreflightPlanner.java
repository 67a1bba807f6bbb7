package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.InstanceSpec;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.pricing.PricingEndpoint;
import io.gpufleet.preflight.model.EntryChoice;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.QuotaNeed;
import io.gpufleet.preflight.model.QuotaValue;
import io.gpufleet.preflight.model.RegionFacts;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.SpotScores;
import io.gpufleet.preflight.model.Verdict;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Pure decision: plan × one region's facts → verdict with human reasons. Per entry it picks the
 * instance type the region would use (offered in the entry's zones, fitting its quota); the Spot
 * score is {@link SpotScoreCheck}'s, reservations and Capacity Blocks {@link CapacityChecks}', the
 * price {@link EntryPricing}'s and the quotas {@link QuotaJudgement}'s. No I/O, no clock. Regions
 * are ranked by {@link RegionRanking}.
 */
public final class PreflightPlanner {
  /** GetSpotPlacementScores scores a request with fewer instance types than this always low. */
  public static final int MIN_SPOT_TYPES = 3;

  private final SpotScoreCheck spotScores;
  private final QuotaJudgement quotaJudgement;

  /**
   * @param warnPercent warn when the plan would take a quota above this share (the alarms'
   *     threshold)
   * @param lowSpotScore warn when a Spot placement score is at or below this
   */
  public PreflightPlanner(double warnPercent, int lowSpotScore) {
    this.spotScores = new SpotScoreCheck(lowSpotScore);
    this.quotaJudgement = new QuotaJudgement(warnPercent);
  }

  /** True for a Spot entry that GetSpotPlacementScores always scores low (too few types). */
  public static boolean fewSpotTypes(PlanEntry entry) {
    return entry.capacityType() == CapacityType.SPOT
        && entry.instanceTypes().stream().distinct().count() < MIN_SPOT_TYPES;
  }

  /**
   * Plan-wide warnings, independent of the region: Spot entries with fewer than {@link
   * #MIN_SPOT_TYPES} instance types, whose placement score AWS always reports low.
   */
  public static List<String> planWarnings(Plan plan) {
    var out = new ArrayList<String>();
    for (PlanEntry entry : plan.entries()) {
      if (fewSpotTypes(entry)) {
        long n = entry.instanceTypes().stream().distinct().count();
        out.add(
            "warning: Spot entry '"
                + entry.name()
                + "' lists "
                + n
                + (n == 1 ? " instance type" : " instance types")
                + ": AWS always gives fewer than "
                + MIN_SPOT_TYPES
                + " types a low Spot placement score, and Spot capacity is shallow without"
                + " alternatives; list at least "
                + MIN_SPOT_TYPES
                + " (other sizes or families)");
      }
    }
    return out;
  }

  public static PreflightPlanner defaults() {
    return new PreflightPlanner(80, 3);
  }

  /** The verdict for one region ({@code scores}: per plan entry name, Spot entries only). */
  public RegionResult evaluate(
      Plan plan, RegionFacts facts, Map<String, SpotScores> scores, long elapsedMs) {
    String region = facts.region();
    var blockers = new ArrayList<String>();
    var warnings = new ArrayList<String>();
    var notes = new ArrayList<String>(facts.notes());
    var allocated = new TreeMap<QuotaBucket.Key, Double>();
    var choices = new ArrayList<EntryChoice>();
    var missingSpecs = new LinkedHashSet<String>();
    var capacity = new CapacityChecks();
    Integer regionScore = null;
    BigDecimal cost = BigDecimal.ZERO;
    boolean anyPrice = false;
    boolean complete = true;
    String regionCurrency = PricingEndpoint.currencyFor(region);

    for (PlanEntry entry : plan.entries()) {
      var zonesHere =
          entry.zones().stream().filter(z -> PlanParser.regionOfZone(z).equals(region)).toList();
      if (!entry.zones().isEmpty() && zonesHere.isEmpty()) {
        blockers.add(
            "'"
                + entry.name()
                + "' is limited to zones "
                + entry.zones()
                + ", none of them in "
                + region);
        continue;
      }
      var candidates = new ArrayList<String>();
      var zonesOf = new HashMap<String, List<String>>();
      for (String type : entry.instanceTypes()) {
        Set<String> offered = facts.offeredZones().getOrDefault(type, Set.of());
        List<String> usable =
            offered.stream()
                .filter(z -> zonesHere.isEmpty() || zonesHere.contains(z))
                .sorted()
                .toList();
        if (!usable.isEmpty()) {
          candidates.add(type);
          zonesOf.put(type, usable);
        }
      }
      if (candidates.isEmpty()) {
        blockers.add(
            (entry.instanceTypes().size() == 1
                    ? entry.instanceTypes().get(0) + " is not"
                    : "none of " + entry.instanceTypes() + " is")
                + " offered in "
                + (zonesHere.isEmpty() ? region : "zones " + zonesHere)
                + " (needed by '"
                + entry.name()
                + "')");
        continue;
      }
      String chosen = choose(entry, candidates, facts, allocated, missingSpecs);
      InstanceSpec spec = spec(chosen, facts, missingSpecs);
      var key = new QuotaBucket.Key(spec.bucket(), entry.capacityType());
      double need = (double) spec.vcpus() * entry.count();
      allocated.merge(key, need, Double::sum);

      Integer score = null;
      if (entry.capacityType() == CapacityType.SPOT) {
        var scored = spotScores.check(entry, region, scores.get(entry.name()), warnings, notes);
        score = scored.entry();
        if (scored.region() != null) {
          regionScore =
              regionScore == null ? scored.region() : Math.min(regionScore, scored.region());
        }
      }
      capacity.check(entry, chosen, facts, warnings, notes);

      var price = EntryPricing.of(entry, chosen, zonesOf.get(chosen), facts, regionCurrency, notes);
      BigDecimal unit = price == null ? null : price.perHour();
      if (unit == null) {
        complete = false;
      } else {
        anyPrice = true;
        cost = cost.add(unit.multiply(BigDecimal.valueOf(entry.count())));
      }
      choices.add(
          new EntryChoice(
              entry.name(),
              chosen,
              entry.capacityType().label(),
              entry.count(),
              spec.vcpus(),
              spec.accelerators(),
              spec.acceleratorModel(),
              spec.memoryMib(),
              zonesOf.get(chosen),
              unit,
              price == null ? null : price.source(),
              score));
    }
    if (!missingSpecs.isEmpty()) {
      notes.add(
          "DescribeInstanceTypes gave no data for "
              + missingSpecs
              + ": vCPUs taken from the built-in catalog");
    }

    List<QuotaNeed> quotas = quotaJudgement.judge(facts, allocated, blockers, warnings, notes);

    Verdict verdict =
        !blockers.isEmpty()
            ? Verdict.NO_GO
            : !warnings.isEmpty() ? Verdict.GO_WITH_WARNINGS : Verdict.GO;
    // prices are only added in the region's own currency
    return RegionResult.builder(region, verdict)
        .blockers(List.copyOf(blockers))
        .warnings(List.copyOf(warnings))
        .notes(List.copyOf(notes))
        .quotas(List.copyOf(quotas))
        .choices(List.copyOf(choices))
        .spotScore(regionScore)
        .cost(
            anyPrice ? cost.setScale(4, RoundingMode.HALF_UP) : null,
            anyPrice ? regionCurrency : null,
            anyPrice && complete)
        .elapsedMs(elapsedMs)
        .build();
  }

  /** The first candidate whose vCPUs still fit its quota, else the first candidate. */
  private String choose(
      PlanEntry entry,
      List<String> candidates,
      RegionFacts facts,
      Map<QuotaBucket.Key, Double> allocated,
      Set<String> missingSpecs) {
    if (candidates.size() == 1) {
      return candidates.get(0);
    }
    for (String type : candidates) {
      InstanceSpec spec = spec(type, facts, new LinkedHashSet<>());
      var key = new QuotaBucket.Key(spec.bucket(), entry.capacityType());
      QuotaValue q = facts.quotas().get(key);
      if (q == null) {
        continue;
      }
      double used = facts.usage().getOrDefault(key, 0.0) + allocated.getOrDefault(key, 0.0);
      if (q.value() - used >= (double) spec.vcpus() * entry.count()) {
        return type;
      }
    }
    return candidates.get(0);
  }

  private static InstanceSpec spec(String type, RegionFacts facts, Set<String> missing) {
    InstanceSpec s = facts.specs().get(type);
    if (s != null) {
      return s;
    }
    missing.add(type);
    return InstanceCatalog.find(type)
        .orElseThrow(() -> new IllegalStateException("no spec for " + type));
  }
}

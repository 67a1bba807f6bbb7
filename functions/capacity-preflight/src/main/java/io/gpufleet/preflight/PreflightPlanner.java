package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.InstanceSpec;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.pricing.HourlyPrice;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Pure decision: plan × one region's facts → verdict with human reasons; and the ranking of
 * regions. No I/O, no clock.
 */
public final class PreflightPlanner {
  /** GetSpotPlacementScores scores a request with fewer instance types than this always low. */
  public static final int MIN_SPOT_TYPES = 3;

  private final double warnPercent;
  private final int lowSpotScore;

  /**
   * @param warnPercent warn when the plan would take a quota above this share (the alarms'
   *     threshold)
   * @param lowSpotScore warn when a Spot placement score is at or below this
   */
  public PreflightPlanner(double warnPercent, int lowSpotScore) {
    this.warnPercent = warnPercent;
    this.lowSpotScore = lowSpotScore;
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
    String currency = null;
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
        SpotScores s = scores.get(entry.name());
        if (s == null || s.unknownIn(region).isPresent()) {
          notes.add(
              "Spot placement score unknown for '"
                  + entry.name()
                  + "'"
                  + (s == null ? "" : ": " + s.unknownIn(region).get()));
        } else if (s.byRegion().containsKey(region)) {
          score = s.byRegion().get(region);
          regionScore = regionScore == null ? score : Math.min(regionScore, score);
          if (score <= lowSpotScore) {
            warnings.add(
                "Spot placement score "
                    + score
                    + "/10 for '"
                    + entry.name()
                    + "' ("
                    + entry.count()
                    + " × "
                    + String.join("|", entry.instanceTypes())
                    + "): a Spot request of this size is unlikely to be fulfilled"
                    + (fewSpotTypes(entry)
                        ? " (with fewer than "
                            + MIN_SPOT_TYPES
                            + " instance types AWS always scores low: list more types)"
                        : ""));
          }
        } else {
          notes.add(
              "no Spot placement score returned for '"
                  + entry.name()
                  + "' here (AWS returns the best-scoring regions only)");
          regionScore = regionScore == null ? 1 : Math.min(regionScore, 1);
        }
      }
      capacity.check(entry, chosen, facts, warnings, notes);

      BigDecimal unit = null;
      String source = null;
      if (entry.capacityType() == CapacityType.SPOT) {
        var perZone = facts.spotPrices().getOrDefault(chosen, Map.of());
        unit =
            zonesOf.get(chosen).stream()
                .map(perZone::get)
                .filter(p -> p != null)
                .min(Comparator.naturalOrder())
                .orElse(null);
        source = unit == null ? null : "spot-history";
        if (unit != null) {
          // Spot price history is in the region's own currency (CNY in China)
          currency = regionCurrency;
        }
      } else {
        HourlyPrice p = facts.onDemandPrices().get(chosen);
        if (p != null && !p.currency().equals(regionCurrency)) {
          notes.add(
              "On-Demand price of "
                  + chosen
                  + " in "
                  + p.currency()
                  + " not added: "
                  + region
                  + " is priced in "
                  + regionCurrency);
        } else if (p != null) {
          unit = p.perHour();
          source = p.source().name().toLowerCase(Locale.ROOT);
          currency = regionCurrency;
        }
      }
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
              source,
              score));
    }
    if (!missingSpecs.isEmpty()) {
      notes.add(
          "DescribeInstanceTypes gave no data for "
              + missingSpecs
              + ": vCPUs taken from the built-in catalog");
    }

    var quotas = new ArrayList<QuotaNeed>();
    allocated.forEach(
        (key, need) -> {
          QuotaValue q = facts.quotas().get(key);
          Double usage = facts.usage().get(key);
          if (q == null) {
            warnings.add(
                key.label()
                    + " quota unknown (not found in Service Quotas): cannot confirm that "
                    + vcpu(need)
                    + " fit");
            quotas.add(new QuotaNeed(key, null, null, usage, need, null));
            return;
          }
          double used = usage == null ? 0 : usage;
          if (usage == null) {
            notes.add(
                "no "
                    + key.usageClass()
                    + " usage data in the last hour: "
                    + key.label()
                    + " usage counted as 0");
          }
          double headroom = q.value() - used - need;
          quotas.add(new QuotaNeed(key, q.quotaCode(), q.value(), usage, need, headroom));
          if (headroom < 0) {
            blockers.add(
                key.label()
                    + " quota "
                    + vcpu(q.value())
                    + ", "
                    + num(used)
                    + " in use, plan needs "
                    + num(need)
                    + ": short by "
                    + num(-headroom)
                    + " — request an increase to at least "
                    + num(used + need)
                    + " ("
                    + q.quotaCode()
                    + ")");
          } else if (q.value() > 0 && (used + need) / q.value() * 100 > warnPercent) {
            warnings.add(
                key.label()
                    + " would be at "
                    + Math.round((used + need) / q.value() * 100)
                    + "% of its "
                    + vcpu(q.value())
                    + " quota after the plan ("
                    + num(used)
                    + " in use + "
                    + num(need)
                    + "); the quota alarm fires at "
                    + num(warnPercent)
                    + "%");
          }
        });

    onDemandFallbacks(facts, allocated).forEach(notes::add);

    Verdict verdict =
        !blockers.isEmpty()
            ? Verdict.NO_GO
            : !warnings.isEmpty() ? Verdict.GO_WITH_WARNINGS : Verdict.GO;
    return new RegionResult(
        0,
        region,
        verdict,
        List.copyOf(blockers),
        List.copyOf(warnings),
        List.copyOf(notes),
        List.copyOf(quotas),
        List.copyOf(choices),
        regionScore,
        anyPrice ? cost.setScale(4, RoundingMode.HALF_UP) : null,
        anyPrice ? (currency == null ? "USD" : currency) : null,
        anyPrice && complete,
        elapsedMs);
  }

  /**
   * For each Spot bucket the plan does not fit, whether the same vCPUs would fit the bucket's
   * On-Demand quota next to the plan's own On-Demand entries: the fallback an SRE reaches for when
   * Spot is short, with the On-Demand headroom it would leave. Nothing when either quota is unknown
   * (no guess presented as a fit).
   */
  static List<String> onDemandFallbacks(RegionFacts facts, Map<QuotaBucket.Key, Double> allocated) {
    var lines = new ArrayList<String>();
    allocated.forEach(
        (key, spotNeed) -> {
          if (key.capacityType() != CapacityType.SPOT) {
            return;
          }
          QuotaValue spotQuota = facts.quotas().get(key);
          if (spotQuota == null) {
            return;
          }
          double spotFree = spotQuota.value() - facts.usage().getOrDefault(key, 0.0);
          if (spotNeed <= spotFree) {
            return;
          }
          var odKey = new QuotaBucket.Key(key.bucket(), CapacityType.ON_DEMAND);
          QuotaValue odQuota = facts.quotas().get(odKey);
          if (odQuota == null) {
            lines.add(
                "On-Demand fallback for "
                    + key.label()
                    + ": "
                    + odKey.label()
                    + " quota unknown, cannot say whether "
                    + vcpu(spotNeed)
                    + " would fit");
            return;
          }
          double odFree =
              odQuota.value()
                  - facts.usage().getOrDefault(odKey, 0.0)
                  - allocated.getOrDefault(odKey, 0.0);
          lines.add(
              spotNeed <= odFree
                  ? "On-Demand fallback: the "
                      + vcpu(spotNeed)
                      + " that do not fit "
                      + key.label()
                      + " would fit "
                      + odKey.label()
                      + " ("
                      + num(odFree)
                      + " free after the plan's On-Demand entries, "
                      + num(odFree - spotNeed)
                      + " left)"
                  : "On-Demand fallback: "
                      + odKey.label()
                      + " cannot take the "
                      + vcpu(spotNeed)
                      + " either ("
                      + num(Math.max(0, odFree))
                      + " free after the plan's On-Demand entries)");
        });
    return lines;
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

  private static final Comparator<RegionResult> RANKING =
      Comparator.comparing(RegionResult::verdict)
          .thenComparing(
              (RegionResult r) -> r.spotScore() == null ? Integer.MIN_VALUE : r.spotScore(),
              Comparator.reverseOrder())
          .thenComparing(
              RegionResult::hourlyCost, Comparator.nullsLast(Comparator.<BigDecimal>naturalOrder()))
          .thenComparing(RegionResult::region);

  /** Best first: fits (verdict), then Spot score (higher first), then hourly cost, then name. */
  public static List<RegionResult> rank(List<RegionResult> results) {
    var sorted = new ArrayList<>(results);
    sorted.sort(RANKING);
    var out = new ArrayList<RegionResult>();
    for (int i = 0; i < sorted.size(); i++) {
      out.add(sorted.get(i).withRank(i + 1));
    }
    return List.copyOf(out);
  }

  static String vcpu(double v) {
    return num(v) + " vCPU";
  }

  static String num(double v) {
    return v == Math.rint(v)
        ? String.format(Locale.ROOT, "%,d", (long) v)
        : String.format(Locale.ROOT, "%,.1f", v);
  }
}

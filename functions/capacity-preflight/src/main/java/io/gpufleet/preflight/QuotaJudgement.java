package io.gpufleet.preflight;

import static io.gpufleet.preflight.VcpuText.num;
import static io.gpufleet.preflight.VcpuText.vcpu;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.model.QuotaNeed;
import io.gpufleet.preflight.model.QuotaValue;
import io.gpufleet.preflight.model.RegionFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The vCPUs a plan takes from each quota bucket of a region, against the quota and the last hour's
 * usage: short is a blocker (with the increase to ask for), above the alarms' share a warning, an
 * unknown quota a warning; and for Spot that does not fit, whether On-Demand would.
 */
final class QuotaJudgement {
  private final double warnPercent;

  /**
   * @param warnPercent warn when the plan would take a quota above this share
   */
  QuotaJudgement(double warnPercent) {
    this.warnPercent = warnPercent;
  }

  /**
   * One need per bucket the plan allocates from, adding blockers, warnings and notes (the On-Demand
   * fallbacks last).
   */
  List<QuotaNeed> judge(
      RegionFacts facts,
      Map<QuotaBucket.Key, Double> allocated,
      List<String> blockers,
      List<String> warnings,
      List<String> notes) {
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
    return quotas;
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
}

package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.event.FleetEvent.AlarmStateChange;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.preflight.model.AlarmOutcome;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.QuotaNeed;
import io.gpufleet.preflight.model.QuotaValue;
import io.gpufleet.preflight.model.RegionResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reacts to a quota-usage alarm going to ALARM: re-checks that region and quota (and the plan, if
 * one is configured), tells people with context, and optionally asks for a capped quota increase —
 * never above the cap, never while a request is PENDING or CASE_OPENED. Each state change is
 * handled once however often it is delivered.
 */
public final class QuotaAlarmService {
  static final Set<String> OPEN_REQUEST = Set.of("PENDING", "CASE_OPENED");

  private final PreflightService preflight;
  private final DedupeStorePort dedupe;
  private final NotifierPort notifier;

  public QuotaAlarmService(
      PreflightService preflight, DedupeStorePort dedupe, NotifierPort notifier) {
    this.preflight = preflight;
    this.dedupe = dedupe;
    this.notifier = notifier;
  }

  /** The dedupe key of a state change: the same for every delivery of it. */
  static String dedupeKey(AlarmStateChange e) {
    return "alarm/" + e.meta().region() + "/" + e.alarmName() + "@" + e.stateTime();
  }

  public AlarmOutcome handle(AlarmStateChange e, Optional<Plan> plan, List<NodePoolSpec> pools) {
    String id = e.meta().id();
    String region = e.meta().region();
    if (!"ALARM".equals(e.state())) {
      return AlarmOutcome.simple(
          id,
          e.alarmName(),
          region,
          AlarmOutcome.Status.IGNORED,
          "alarm is " + e.state() + " (was " + e.previousState() + "): nothing to do");
    }
    var usageMetric = e.metricIn("AWS/Usage");
    String usageClass = usageMetric.map(m -> m.dimensions().get("Class")).orElse(null);
    Optional<QuotaBucket.Key> key = usageClass == null ? Optional.empty() : keyOf(usageClass);
    if (key.isEmpty() || region == null || region.isBlank()) {
      return AlarmOutcome.simple(
          id,
          e.alarmName(),
          region,
          AlarmOutcome.Status.REJECTED,
          "alarm "
              + e.alarmName()
              + " does not watch an EC2 vCPU class of AWS/Usage"
              + (usageClass == null ? "" : " (Class=" + usageClass + ")"));
    }
    String dk = dedupeKey(e);
    if (!dedupe.claim(dk)) {
      return AlarmOutcome.simple(
          id,
          e.alarmName(),
          region,
          AlarmOutcome.Status.ALREADY_HANDLED,
          "state change of " + e.stateTime() + " was handled already (repeat delivery)");
    }
    try {
      return act(e, key.get(), usageClass, region, plan, pools);
    } catch (RuntimeException ex) {
      dedupe.release(dk);
      throw ex;
    }
  }

  private AlarmOutcome act(
      AlarmStateChange e,
      QuotaBucket.Key key,
      String usageClass,
      String region,
      Optional<Plan> plan,
      List<NodePoolSpec> pools) {
    QuotaValue quota = preflight.quotaPort().quotas(region, List.of(key)).get(key);
    Double usage = preflight.usagePort().maxUsageLastHour(region, Map.of(key, usageClass)).get(key);
    double used = usage == null ? 0 : usage;
    Double percent = quota == null || quota.value() <= 0 ? null : used / quota.value() * 100;

    var plansAtRisk = new ArrayList<String>();
    double planNeed = 0;
    if (plan.isPresent()) {
      var report = preflight.run(plan.get().withRegions(List.of(region)), List.of(), "alarm");
      RegionResult r = report.regions().get(0);
      for (QuotaNeed q : r.quotas()) {
        if (q.key().equals(key)) {
          planNeed = q.need();
          plansAtRisk.add(
              "plan '"
                  + plan.get().name()
                  + "' needs "
                  + VcpuText.vcpu(q.need())
                  + " of "
                  + key.label()
                  + " here: "
                  + r.verdict()
                  + (q.headroom() == null
                      ? ""
                      : " (headroom after the plan " + VcpuText.vcpu(q.headroom()) + ")"));
        }
      }
    }
    var poolsAtRisk = new ArrayList<String>();
    var analyzer = new NodePoolAnalyzer();
    for (NodePoolSpec p : pools) {
      for (var x : analyzer.exposures(p)) {
        if (x.key().equals(key)) {
          boolean exceeds = quota != null && x.worstCaseVcpu() > quota.value() - used;
          poolsAtRisk.add(
              p.name()
                  + " (worst case "
                  + VcpuText.vcpu(x.worstCaseVcpu())
                  + (exceeds ? ", more than the headroom left" : "")
                  + ")");
        }
      }
    }
    String increase = increase(region, key, quota, used, planNeed, e.alarmName());
    String message =
        key.label()
            + " in "
            + region
            + ": "
            + VcpuText.num(used)
            + " of "
            + (quota == null ? "an unknown quota of" : VcpuText.num(quota.value()))
            + " vCPU in use"
            + (percent == null ? "" : " (" + Math.round(percent) + "%)");
    var outcome =
        new AlarmOutcome(
            e.meta().id(),
            e.alarmName(),
            region,
            key.label(),
            quota == null
                ? key.bucket().fallbackQuotaCode(key.capacityType()).orElse(null)
                : quota.quotaCode(),
            AlarmOutcome.Status.HANDLED,
            usage,
            quota == null ? null : quota.value(),
            percent,
            List.copyOf(plansAtRisk),
            List.copyOf(poolsAtRisk),
            increase,
            message);
    notifier.notify(subject(outcome), body(outcome, e));
    return outcome;
  }

  private String increase(
      String region,
      QuotaBucket.Key key,
      QuotaValue quota,
      double used,
      double planNeed,
      String alarmName) {
    var s = preflight.settings();
    if (!s.increaseEnabled()) {
      return "not requested (automatic increase requests are off)";
    }
    if (quota == null) {
      return "not requested (quota code unknown)";
    }
    if (!quota.adjustable()) {
      return "not requested (" + quota.quotaCode() + " is not adjustable)";
    }
    double target = Math.max(quota.value() * s.increaseFactor(), used + planNeed);
    double desired = Math.min(target, s.increaseMaxVcpu());
    if (desired <= quota.value()) {
      return "not requested (quota "
          + VcpuText.vcpu(quota.value())
          + " is already at or above the cap of "
          + VcpuText.vcpu(s.increaseMaxVcpu())
          + ")";
    }
    var open =
        preflight.quotaPort().requests(region, quota.quotaCode()).stream()
            .filter(r -> OPEN_REQUEST.contains(r.status()))
            .findFirst();
    if (open.isPresent()) {
      return "not requested (request "
          + open.get().id()
          + " for "
          + VcpuText.vcpu(open.get().desiredValue())
          + " is already "
          + open.get().status()
          + ")";
    }
    // the event says ALARM; the alarm itself must say so now (DescribeAlarms), or the payload is
    // stale or forged and asks for nothing
    var now = preflight.usagePort().alarmState(region, alarmName);
    if (now.isEmpty() || !"ALARM".equals(now.get())) {
      return "not requested (alarm "
          + alarmName
          + (now.isEmpty()
              ? " does not exist in " + region + " (DescribeAlarms)"
              : " is " + now.get() + " now, not ALARM (DescribeAlarms)")
          + ")";
    }
    var req = preflight.quotaPort().requestIncrease(region, quota.quotaCode(), desired);
    return "requested "
        + VcpuText.vcpu(desired)
        + " (request "
        + req.id()
        + ", "
        + req.status()
        + "; cap "
        + VcpuText.vcpu(s.increaseMaxVcpu())
        + ")";
  }

  static String subject(AlarmOutcome o) {
    return "[GPU Fleet] "
        + o.quota()
        + " quota"
        + (o.percent() == null ? "" : " at " + Math.round(o.percent()) + "%")
        + " in "
        + o.region();
  }

  static String body(AlarmOutcome o, AlarmStateChange e) {
    var sb = new StringBuilder();
    sb.append(o.message()).append('\n');
    sb.append("alarm ").append(e.alarmName()).append(" went to ALARM at ").append(e.stateTime());
    if (e.reason() != null) {
      sb.append(": ").append(e.reason());
    }
    sb.append('\n');
    sb.append("quota code: ").append(o.quotaCode()).append('\n');
    if (!o.plansAtRisk().isEmpty()) {
      sb.append("plans at risk:\n");
      o.plansAtRisk().forEach(p -> sb.append("  ").append(p).append('\n'));
    }
    if (!o.poolsAtRisk().isEmpty()) {
      sb.append("NodePools that draw on this quota:\n");
      o.poolsAtRisk().forEach(p -> sb.append("  ").append(p).append('\n'));
    }
    sb.append("quota increase: ").append(o.increase());
    return sb.toString();
  }

  /** "P/Spot" → (P, SPOT); "G/OnDemand" → (G and VT, ON_DEMAND). */
  static Optional<QuotaBucket.Key> keyOf(String usageClass) {
    int slash = usageClass.indexOf('/');
    if (slash < 0) {
      return Optional.empty();
    }
    String suffix = usageClass.substring(slash + 1);
    Optional<CapacityType> ct =
        switch (suffix) {
          case "OnDemand" -> Optional.of(CapacityType.ON_DEMAND);
          case "Spot" -> Optional.of(CapacityType.SPOT);
          default -> Optional.empty();
        };
    String prefix = usageClass.substring(0, slash);
    for (QuotaBucket b : QuotaBucket.values()) {
      if (ct.isPresent() && b.usageClass(ct.get()).equals(usageClass)) {
        return Optional.of(new QuotaBucket.Key(b, ct.get()));
      }
    }
    return QuotaBucket.parse(prefix).flatMap(b -> ct.map(c -> new QuotaBucket.Key(b, c)));
  }
}

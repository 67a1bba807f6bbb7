package io.gpufleet.preflight;

import io.gpufleet.core.outcome.CoreMetrics;
import io.gpufleet.core.outcome.Metric;
import io.gpufleet.core.outcome.MetricsPort.Unit;
import io.gpufleet.preflight.model.AlarmOutcome;
import io.gpufleet.preflight.model.Verdict;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Every metric the capacity preflight publishes (Service = capacity-preflight). */
public final class PreflightMetrics {
  private PreflightMetrics() {}

  public static final String SERVICE = "capacity-preflight";

  /** Regions of a run by verdict ({@code RegionsGo}, {@code RegionsNoGo} ...). */
  public static final Map<Verdict, Metric> REGIONS = Metric.countsPer("Regions", Verdict.class);

  /** Quota alarm state changes by how they were handled. */
  public static final Map<AlarmOutcome.Status, Metric> ALARMS =
      Metric.countsPer("Alarms", AlarmOutcome.Status.class);

  /** vCPUs left in a quota bucket (quota − usage) per region and bucket (usage class). */
  public static final Metric QUOTA_HEADROOM_VCPU =
      Metric.gauge("QuotaHeadroomVcpu", Unit.NONE, "Region", "Quota");

  /** vCPUs left in a bucket once the plan is placed (negative: the plan does not fit). */
  public static final Metric PLAN_HEADROOM_VCPU =
      Metric.gauge("PlanHeadroomVcpu", Unit.NONE, "Region", "Quota");

  public static final Metric EVENTS_IGNORED = Metric.count("EventsIgnored");
  public static final Metric RUNS_ALREADY_HANDLED = Metric.count("RunsAlreadyHandled");
  public static final Metric NODE_POOL_READ_FAILURES = Metric.count("NodePoolReadFailures");
  public static final Metric PAYLOADS_REJECTED = Metric.count("PayloadsRejected");

  /** Everything this function publishes, the kernel's metrics included. */
  public static final List<Metric> ALL;

  static {
    var all = new ArrayList<Metric>(REGIONS.values());
    all.addAll(ALARMS.values());
    all.addAll(
        List.of(
            QUOTA_HEADROOM_VCPU,
            PLAN_HEADROOM_VCPU,
            EVENTS_IGNORED,
            RUNS_ALREADY_HANDLED,
            NODE_POOL_READ_FAILURES,
            PAYLOADS_REJECTED));
    all.addAll(CoreMetrics.ALL);
    ALL = Collections.unmodifiableList(all);
  }
}

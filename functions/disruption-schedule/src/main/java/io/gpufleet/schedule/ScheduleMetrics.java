package io.gpufleet.schedule;

import io.gpufleet.core.outcome.CoreMetrics;
import io.gpufleet.core.outcome.Metric;
import io.gpufleet.schedule.model.ScheduleOutcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Every metric the disruption schedule publishes (Service = disruption-schedule). */
public final class ScheduleMetrics {
  private ScheduleMetrics() {}

  public static final String SERVICE = "disruption-schedule";

  /** Runs by outcome ({@code RunsReconciled}, {@code RunsInvalidPolicy} ...). */
  public static final Map<ScheduleOutcome.Status, Metric> RUNS =
      Metric.countsPer("Runs", ScheduleOutcome.Status.class);

  public static final Metric OBJECTS_WRITTEN = Metric.count("ObjectsWritten");
  public static final Metric WRITES_FAILED = Metric.count("WritesFailed");
  public static final Metric DRY_RUN_WRITES = Metric.count("DryRunWrites");

  /** Objects given back the value they had before the schedule changed them. */
  public static final Metric RESTORED = Metric.count("Restored");

  /** Objects someone else changed since the schedule wrote them: released, not overwritten. */
  public static final Metric CHANGED_BY_OTHERS = Metric.count("ChangedByOthers");

  public static final Metric HELD = Metric.count("Held");
  public static final Metric SKIPPED = Metric.count("Skipped");
  public static final Metric RECONCILE_TIME = Metric.millis("ReconcileTime");

  /** Everything this function publishes, the kernel's metrics included. */
  public static final List<Metric> ALL;

  static {
    var all = new ArrayList<Metric>(RUNS.values());
    all.addAll(
        List.of(
            OBJECTS_WRITTEN,
            WRITES_FAILED,
            DRY_RUN_WRITES,
            RESTORED,
            CHANGED_BY_OTHERS,
            HELD,
            SKIPPED,
            RECONCILE_TIME));
    all.addAll(CoreMetrics.ALL);
    ALL = Collections.unmodifiableList(all);
  }
}

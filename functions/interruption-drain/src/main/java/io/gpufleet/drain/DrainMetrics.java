package io.gpufleet.drain;

import io.gpufleet.core.outcome.CoreMetrics;
import io.gpufleet.core.outcome.Metric;
import io.gpufleet.drain.model.DrainOutcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Every metric the interruption drain publishes (Service = interruption-drain). */
public final class DrainMetrics {
  private DrainMetrics() {}

  public static final String SERVICE = "interruption-drain";

  private static final Map<DrainOutcome.Status, Metric> EVENTS =
      Metric.countsPer("Events", DrainOutcome.Status.class);

  /** Events that ended with this outcome ({@code EventsDrained}, {@code EventsPartial} ...). */
  public static Metric events(DrainOutcome.Status status) {
    return EVENTS.get(status);
  }

  /** Events by event kind and outcome status. */
  public static final Metric EVENTS_BY_KIND = Metric.count("EventsByKind", "Kind", "Outcome");

  /** An event the invocation could not handle (it throws, so Lambda retries). */
  public static final Metric EVENTS_FAILED = Metric.count("EventsFailed");

  public static final Metric PODS_EVICTED = Metric.count("PodsEvicted");
  public static final Metric PODS_NOT_EVICTED = Metric.count("PodsNotEvicted");

  /** Pods that did not make it, by what stopped them ({@code PodReport.Status}). */
  public static final Metric PODS_NOT_EVICTED_BY_REASON =
      Metric.count("PodsNotEvictedByReason", "Reason");

  public static final Metric PODS_GRACE_PERIOD_CAPPED = Metric.count("PodsGracePeriodCapped");
  public static final Metric TIME_TO_CORDON = Metric.millis("TimeToCordon");
  public static final Metric TIME_TO_EVICTIONS_ISSUED = Metric.millis("TimeToEvictionsIssued");
  public static final Metric TIME_TO_ALL_GONE = Metric.millis("TimeToAllGone");
  public static final Metric DEADLINE_MISSED = Metric.count("DeadlineMissed");

  /** Opted-in pods that reported their checkpoint before eviction (issue 29). */
  public static final Metric CHECKPOINTS_MADE = Metric.count("CheckpointsMade");

  /** Opted-in pods held for a checkpoint that never reported it. */
  public static final Metric CHECKPOINTS_MISSED = Metric.count("CheckpointsMissed");

  /** Everything this function publishes, the kernel's metrics included. */
  public static final List<Metric> ALL;

  static {
    var all = new ArrayList<Metric>(EVENTS.values());
    all.addAll(
        List.of(
            EVENTS_BY_KIND,
            EVENTS_FAILED,
            PODS_EVICTED,
            PODS_NOT_EVICTED,
            PODS_NOT_EVICTED_BY_REASON,
            PODS_GRACE_PERIOD_CAPPED,
            TIME_TO_CORDON,
            TIME_TO_EVICTIONS_ISSUED,
            TIME_TO_ALL_GONE,
            DEADLINE_MISSED,
            CHECKPOINTS_MADE,
            CHECKPOINTS_MISSED));
    all.addAll(CoreMetrics.ALL);
    ALL = Collections.unmodifiableList(all);
  }
}

package io.gpufleet.schedule;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.MetricsPort.Unit;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.Sinks;
import io.gpufleet.schedule.model.Change;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.model.ScheduleOutcome.Status;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one outcome everywhere it belongs: a JSON log line (every change with before/after), EMF
 * metrics, an EventBridge event when something changed or failed, a notification for an invalid
 * policy or failed writes, and (during the run) a Kubernetes Event per changed object. Reporting
 * never fails a run: a sink that fails is logged and counted.
 */
public final class ScheduleReporter {
  public static final String DETAIL_TYPE = "GPU Fleet Disruption Schedule Outcome";
  private static final Logger LOG = LoggerFactory.getLogger(ScheduleReporter.class);

  private final ScheduleClusterPort cluster;
  private final MetricsPort metrics;
  private final EventPublisherPort publisher;
  private final NotifierPort notifier;

  public ScheduleReporter(
      ScheduleClusterPort cluster,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier) {
    this.cluster = cluster;
    this.metrics = metrics;
    this.publisher = publisher;
    this.notifier = notifier;
  }

  public ScheduleOutcome report(ScheduleOutcome o) {
    if (o.status() == Status.REJECTED || o.status() == Status.INVALID_POLICY) {
      LOG.warn(
          "schedule {}: {}", o.status(), o.message(), entry("outcome", Json.MAPPER.valueToTree(o)));
    } else {
      LOG.info(
          "schedule {}: {}", o.status(), o.message(), entry("outcome", Json.MAPPER.valueToTree(o)));
    }
    metrics.add("Runs" + capitalized(o.status().name()), 1, Unit.COUNT);
    if (o.writes() > 0) {
      metrics.add("ObjectsWritten", o.writes(), Unit.COUNT);
    }
    if (o.failed() > 0) {
      metrics.add("WritesFailed", o.failed(), Unit.COUNT);
    }
    if (o.dryRun() && !o.changes().isEmpty()) {
      metrics.add("DryRunWrites", o.changes().size(), Unit.COUNT);
    }
    count(o.changes(), Change.Action.RESTORE, "Restored");
    count(o.changes(), Change.Action.RELEASE, "ChangedByOthers");
    count(o.notices(), Change.Action.HOLD, "Held");
    count(o.notices(), Change.Action.SKIP, "Skipped");
    if (o.durationMs() > 0) {
      metrics.add("ReconcileTime", o.durationMs(), Unit.MILLISECONDS);
    }
    // held objects are in the log and metrics of every run; the event bus hears of changes
    boolean interesting =
        !o.changes().isEmpty()
            || o.status() == Status.INVALID_POLICY
            || o.status() == Status.PARTIAL;
    if (interesting) {
      guarded(
          "eventbridge",
          () ->
              publisher.publish(
                  DETAIL_TYPE, o, o.scheduleArn() == null ? List.of() : List.of(o.scheduleArn())));
    }
    if (o.status() == Status.INVALID_POLICY || o.status() == Status.PARTIAL) {
      guarded("notification", () -> notifier.notify(subject(o), summary(o)));
    }
    return o;
  }

  /** A Kubernetes Event on an object just written. */
  void event(ObjectRef ref, Change c) {
    guarded(
        "kubernetes event",
        () ->
            cluster.recordEvent(
                ref,
                c.action() == Change.Action.RELEASE,
                switch (c.action()) {
                  case APPLY -> "GpuFleetScheduleApplied";
                  case RESTORE -> "GpuFleetScheduleRestored";
                  default -> "GpuFleetScheduleReleased";
                },
                c.note() + ": " + c.before() + " -> " + c.after()));
  }

  private void count(List<Change> changes, Change.Action action, String metric) {
    long n = changes.stream().filter(c -> c.action() == action).count();
    if (n > 0) {
      metrics.add(metric, n, Unit.COUNT);
    }
  }

  private void guarded(String sink, Runnable action) {
    Sinks.guarded(metrics, LOG, sink, action);
  }

  public static String subject(ScheduleOutcome o) {
    return "[GPU Fleet] schedule " + o.status() + " (" + o.cluster() + ")";
  }

  /** What an on-call engineer reads first. */
  public static String summary(ScheduleOutcome o) {
    var sb = new StringBuilder();
    sb.append(o.status()).append(": ").append(o.message()).append('\n');
    if (o.window() != null) {
      sb.append("window ")
          .append(o.window())
          .append(" (")
          .append(o.windowReason())
          .append(") at ")
          .append(o.localTime())
          .append(' ')
          .append(o.timeZone())
          .append('\n');
    }
    sb.append(
        o.changes().stream()
            .map(
                c ->
                    "  "
                        + c.action()
                        + " "
                        + c.kind()
                        + " "
                        + (c.namespace() == null ? "" : c.namespace() + "/")
                        + c.name()
                        + " "
                        + c.before()
                        + " -> "
                        + c.after()
                        + (c.error() == null ? "" : "  FAILED: " + c.error()))
            .collect(Collectors.joining("\n")));
    return sb.toString();
  }

  private static String capitalized(String enumName) {
    var sb = new StringBuilder();
    for (String p : enumName.toLowerCase(java.util.Locale.ROOT).split("_")) {
      sb.append(Character.toUpperCase(p.charAt(0))).append(p.substring(1));
    }
    return sb.toString();
  }
}

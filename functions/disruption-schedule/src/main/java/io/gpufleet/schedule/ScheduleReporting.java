package io.gpufleet.schedule;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.Metric;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.outcome.OutcomeReporter.Event;
import io.gpufleet.core.outcome.OutcomeReporter.LogLine;
import io.gpufleet.core.outcome.OutcomeReporter.Notice;
import io.gpufleet.schedule.model.Change;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.model.ScheduleOutcome.Status;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.event.Level;

/**
 * What a schedule outcome says to each sink ({@link OutcomeReporter}): a JSON log line (every
 * change with before/after), EMF metrics, an EventBridge event when something changed or failed, a
 * notification for an invalid policy or failed writes; and, during the run, the Kubernetes Event on
 * each object written ({@link #recordEvent}).
 */
public final class ScheduleReporting implements OutcomeReporter.Mapping<ScheduleOutcome> {
  public static final String DETAIL_TYPE = "GPU Fleet Disruption Schedule Outcome";

  private ScheduleReporting() {}

  public static OutcomeReporter<ScheduleOutcome> reporter(
      MetricsPort metrics, EventPublisherPort publisher, NotifierPort notifier) {
    return new OutcomeReporter<>(new ScheduleReporting(), metrics, publisher, notifier);
  }

  @Override
  public LogLine logLine(ScheduleOutcome o) {
    var level =
        o.status() == Status.REJECTED
                || o.status() == Status.INVALID_POLICY
                || o.status() == Status.GUARDRAIL
            ? Level.WARN
            : Level.INFO;
    return new LogLine(
        level,
        "schedule {}: {}",
        o.status(),
        o.message(),
        entry("outcome", Json.MAPPER.valueToTree(o)));
  }

  @Override
  public void count(ScheduleOutcome o, MetricsPort metrics) {
    metrics.add(ScheduleMetrics.RUNS.get(o.status()), 1);
    if (o.writes() > 0) {
      metrics.add(ScheduleMetrics.OBJECTS_WRITTEN, o.writes());
    }
    if (o.failed() > 0) {
      metrics.add(ScheduleMetrics.WRITES_FAILED, o.failed());
    }
    if (o.dryRun() && !o.changes().isEmpty()) {
      metrics.add(ScheduleMetrics.DRY_RUN_WRITES, o.changes().size());
    }
    count(metrics, o.changes(), Change.Action.RESTORE, ScheduleMetrics.RESTORED);
    count(metrics, o.changes(), Change.Action.RELEASE, ScheduleMetrics.CHANGED_BY_OTHERS);
    count(metrics, o.notices(), Change.Action.HOLD, ScheduleMetrics.HELD);
    count(metrics, o.notices(), Change.Action.SKIP, ScheduleMetrics.SKIPPED);
    if (o.durationMs() > 0) {
      metrics.add(ScheduleMetrics.RECONCILE_TIME, o.durationMs());
    }
  }

  /** Held objects are in the log and metrics of every run; the event bus hears of changes. */
  @Override
  public Optional<Event> event(ScheduleOutcome o) {
    boolean interesting =
        !o.changes().isEmpty()
            || o.status() == Status.INVALID_POLICY
            || o.status() == Status.GUARDRAIL
            || o.status() == Status.PARTIAL;
    if (!interesting) {
      return Optional.empty();
    }
    return Optional.of(
        new Event(DETAIL_TYPE, o, o.scheduleArn() == null ? List.of() : List.of(o.scheduleArn())));
  }

  @Override
  public Optional<Notice> notice(ScheduleOutcome o) {
    if (o.status() == Status.INVALID_POLICY
        || o.status() == Status.PARTIAL
        || o.status() == Status.GUARDRAIL) {
      return Optional.of(new Notice(subject(o), summary(o)));
    }
    return Optional.empty();
  }

  /** A Kubernetes Event on an object just written. */
  static void recordEvent(ScheduleClusterPort cluster, ObjectRef ref, Change c) {
    cluster.recordEvent(
        ref,
        c.action() == Change.Action.RELEASE,
        switch (c.action()) {
          case APPLY -> "GpuFleetScheduleApplied";
          case RESTORE -> "GpuFleetScheduleRestored";
          default -> "GpuFleetScheduleReleased";
        },
        c.note() + ": " + c.before() + " -> " + c.after());
  }

  private static void count(
      MetricsPort metrics, List<Change> changes, Change.Action action, Metric metric) {
    long n = changes.stream().filter(c -> c.action() == action).count();
    if (n > 0) {
      metrics.add(metric, n);
    }
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
}

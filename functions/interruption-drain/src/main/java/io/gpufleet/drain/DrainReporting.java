package io.gpufleet.drain;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.outcome.OutcomeReporter.Delivery;
import io.gpufleet.core.outcome.OutcomeReporter.Event;
import io.gpufleet.core.outcome.OutcomeReporter.LogLine;
import io.gpufleet.core.outcome.OutcomeReporter.Notice;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.PodReport;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.event.Level;

/**
 * What a drain outcome says to each sink ({@link OutcomeReporter}): a JSON log line, EMF metrics,
 * and for an outcome that acted on a node a Kubernetes Event on it, an EventBridge event and a
 * human summary (shaped by {@code DRAIN_MESSAGE_TEMPLATE} when set).
 */
public final class DrainReporting implements OutcomeReporter.Mapping<DrainOutcome> {
  public static final String DETAIL_TYPE = "GPU Fleet Drain Outcome";

  private final DrainClusterPort cluster;
  private final MessageTemplate template;

  private DrainReporting(DrainClusterPort cluster, MessageTemplate template) {
    this.cluster = cluster;
    this.template = template;
  }

  public static OutcomeReporter<DrainOutcome> reporter(
      DrainClusterPort cluster,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier) {
    return reporter(cluster, metrics, publisher, notifier, DrainSettings.Options.DEFAULTS);
  }

  /** With {@code options.messageTemplate()} (DRAIN_MESSAGE_TEMPLATE) shaping the summary text. */
  public static OutcomeReporter<DrainOutcome> reporter(
      DrainClusterPort cluster,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier,
      DrainSettings.Options options) {
    return new OutcomeReporter<>(
        new DrainReporting(cluster, options.messageTemplate()), metrics, publisher, notifier);
  }

  @Override
  public LogLine logLine(DrainOutcome o) {
    var outcome = entry("outcome", Json.MAPPER.valueToTree(o));
    return o.status() == DrainOutcome.Status.REJECTED
        ? new LogLine(Level.WARN, "event rejected: {}", o.message(), outcome)
        : new LogLine(Level.INFO, "drain outcome {} for {}", o.status(), o.instanceId(), outcome);
  }

  @Override
  public List<Delivery> deliveries(DrainOutcome o) {
    if (!o.acted()) {
      return List.of();
    }
    return List.of(
        new Delivery(
            "kubernetes event",
            () ->
                cluster.recordNodeEvent(
                    o.node(),
                    o.status() == DrainOutcome.Status.PARTIAL,
                    "GpuFleet" + OutcomeReporter.pascal(o.status().name()),
                    o.kind() + " " + o.eventId() + ": " + o.message())));
  }

  @Override
  public Optional<Event> event(DrainOutcome o) {
    if (!o.acted()) {
      return Optional.empty();
    }
    return Optional.of(
        new Event(DETAIL_TYPE, o, o.instanceId() == null ? List.of() : List.of(o.instanceId())));
  }

  @Override
  public Optional<Notice> notice(DrainOutcome o) {
    if (!o.acted()) {
      return Optional.empty();
    }
    return Optional.of(new Notice(subject(o), template == null ? summary(o) : template.render(o)));
  }

  @Override
  public void count(DrainOutcome o, MetricsPort metrics) {
    metrics.add(DrainMetrics.events(o.status()), 1);
    if (o.kind() != null) {
      metrics.add(
          DrainMetrics.EVENTS_BY_KIND,
          1,
          Map.of("Kind", o.kind(), "Outcome", OutcomeReporter.pascal(o.status().name())));
    }
    if (o.podsEvicted() != null && !o.podsEvicted().isEmpty()) {
      metrics.add(DrainMetrics.PODS_EVICTED, o.podsEvicted().size());
    }
    if (o.podsNotEvicted() != null && !o.podsNotEvicted().isEmpty()) {
      metrics.add(DrainMetrics.PODS_NOT_EVICTED, o.podsNotEvicted().size());
      o.podsNotEvicted().stream()
          .collect(Collectors.groupingBy(r -> r.status(), TreeMap::new, Collectors.counting()))
          .forEach(
              (reason, n) ->
                  metrics.add(
                      DrainMetrics.PODS_NOT_EVICTED_BY_REASON,
                      n,
                      Map.of("Reason", OutcomeReporter.pascal(reason.name()))));
    }
    if (o.gracePeriodCapped() != null && !o.gracePeriodCapped().isEmpty()) {
      metrics.add(DrainMetrics.PODS_GRACE_PERIOD_CAPPED, o.gracePeriodCapped().size());
    }
    if (o.timings() != null) {
      if (o.timings().cordonedMs() != null) {
        metrics.add(DrainMetrics.TIME_TO_CORDON, o.timings().cordonedMs());
      }
      if (o.timings().evictionsIssuedMs() != null && o.status() != DrainOutcome.Status.CORDONED) {
        metrics.add(DrainMetrics.TIME_TO_EVICTIONS_ISSUED, o.timings().evictionsIssuedMs());
      }
      if (o.timings().allGoneMs() != null) {
        metrics.add(DrainMetrics.TIME_TO_ALL_GONE, o.timings().allGoneMs());
      }
    }
    if (Boolean.FALSE.equals(o.deadlineMet())) {
      metrics.add(DrainMetrics.DEADLINE_MISSED, 1);
    }
    if (o.checkpoints() != null) {
      // a checkpoint is missed when the pod was held for one (a deadline) and never reported it
      long made = o.checkpoints().stream().filter(c -> c.made()).count();
      long missed =
          o.checkpoints().stream().filter(c -> !c.made() && c.latestEviction() != null).count();
      metrics.add(DrainMetrics.CHECKPOINTS_MADE, made);
      metrics.add(DrainMetrics.CHECKPOINTS_MISSED, missed);
    }
  }

  public static String subject(DrainOutcome o) {
    return "[GPU Fleet] "
        + o.status()
        + " "
        + o.node()
        + " ("
        + o.kind()
        + ", "
        + o.cluster()
        + ")";
  }

  /** The few lines an on-call engineer reads first: what happened and what did not make it. */
  public static String summary(DrainOutcome o) {
    var sb = new StringBuilder();
    sb.append(o.status())
        .append(": node ")
        .append(o.node())
        .append(" (instance ")
        .append(o.instanceId())
        .append(") on ")
        .append(o.kind())
        .append(" event ")
        .append(o.eventId())
        .append('\n');
    sb.append(o.message()).append('\n');
    if (o.podsEvicted() != null) {
      sb.append("evicted: ").append(o.podsEvicted().size()).append('\n');
    }
    if (o.podsNotEvicted() != null && !o.podsNotEvicted().isEmpty()) {
      sb.append("did not make it:\n");
      sb.append(
          o.podsNotEvicted().stream()
              .map(r -> "  " + r.pod() + "  " + r.status() + "  " + r.reason())
              .collect(Collectors.joining("\n")));
      sb.append('\n');
    }
    if (o.gracePeriodCapped() != null && !o.gracePeriodCapped().isEmpty()) {
      sb.append("grace period capped: ")
          .append(
              o.gracePeriodCapped().stream().map(PodReport::pod).collect(Collectors.joining(", ")))
          .append('\n');
    }
    if (o.deadline() != null) {
      sb.append("deadline ")
          .append(o.deadline())
          .append(Boolean.TRUE.equals(o.deadlineMet()) ? " met" : " NOT met");
    }
    return sb.toString();
  }
}

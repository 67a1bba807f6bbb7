package io.gpufleet.drain;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.MetricsPort.Unit;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.Sinks;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.PodReport;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one outcome everywhere it belongs: a JSON log line, EMF metrics, a Kubernetes Event on the
 * node, an EventBridge event and a human summary. Reporting never fails a drain: a sink that fails
 * is logged and counted.
 */
public final class DrainReporter {
  public static final String DETAIL_TYPE = "GPU Fleet Drain Outcome";
  private static final Logger LOG = LoggerFactory.getLogger(DrainReporter.class);

  private final DrainClusterPort cluster;
  private final MetricsPort metrics;
  private final EventPublisherPort publisher;
  private final NotifierPort notifier;
  private final MessageTemplate template;

  public DrainReporter(
      DrainClusterPort cluster,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier) {
    this(cluster, metrics, publisher, notifier, DrainSettings.Options.DEFAULTS);
  }

  /** With {@code options.messageTemplate()} (DRAIN_MESSAGE_TEMPLATE) shaping the summary text. */
  public DrainReporter(
      DrainClusterPort cluster,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier,
      DrainSettings.Options options) {
    this.template = options.messageTemplate();
    this.cluster = cluster;
    this.metrics = metrics;
    this.publisher = publisher;
    this.notifier = notifier;
  }

  public void report(DrainOutcome o) {
    if (o.status() == DrainOutcome.Status.REJECTED) {
      LOG.warn("event rejected: {}", o.message(), entry("outcome", Json.MAPPER.valueToTree(o)));
    } else {
      LOG.info(
          "drain outcome {} for {}",
          o.status(),
          o.instanceId(),
          entry("outcome", Json.MAPPER.valueToTree(o)));
    }
    count(o);
    if (!o.acted()) {
      return;
    }
    guarded(
        "kubernetes event",
        () ->
            cluster.recordNodeEvent(
                o.node(),
                o.status() == DrainOutcome.Status.PARTIAL,
                "GpuFleet" + capitalized(o.status().name()),
                o.kind() + " " + o.eventId() + ": " + o.message()));
    guarded(
        "eventbridge",
        () ->
            publisher.publish(
                DETAIL_TYPE, o, o.instanceId() == null ? List.of() : List.of(o.instanceId())));
    guarded(
        "notification",
        () -> notifier.notify(subject(o), template == null ? summary(o) : template.render(o)));
  }

  private void count(DrainOutcome o) {
    metrics.add("Events" + capitalized(o.status().name()), 1, Unit.COUNT);
    if (o.podsEvicted() != null && !o.podsEvicted().isEmpty()) {
      metrics.add("PodsEvicted", o.podsEvicted().size(), Unit.COUNT);
    }
    if (o.podsNotEvicted() != null && !o.podsNotEvicted().isEmpty()) {
      metrics.add("PodsNotEvicted", o.podsNotEvicted().size(), Unit.COUNT);
    }
    if (o.gracePeriodCapped() != null && !o.gracePeriodCapped().isEmpty()) {
      metrics.add("PodsGracePeriodCapped", o.gracePeriodCapped().size(), Unit.COUNT);
    }
    if (o.timings() != null) {
      if (o.timings().cordonedMs() != null) {
        metrics.add("TimeToCordon", o.timings().cordonedMs(), Unit.MILLISECONDS);
      }
      if (o.timings().evictionsIssuedMs() != null && o.status() != DrainOutcome.Status.CORDONED) {
        metrics.add("TimeToEvictionsIssued", o.timings().evictionsIssuedMs(), Unit.MILLISECONDS);
      }
      if (o.timings().allGoneMs() != null) {
        metrics.add("TimeToAllGone", o.timings().allGoneMs(), Unit.MILLISECONDS);
      }
    }
    if (Boolean.FALSE.equals(o.deadlineMet())) {
      metrics.add("DeadlineMissed", 1, Unit.COUNT);
    }
  }

  private void guarded(String sink, Runnable action) {
    Sinks.guarded(metrics, LOG, sink, action);
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

  private static String capitalized(String enumName) {
    var parts = enumName.toLowerCase(Locale.ROOT).split("_");
    var sb = new StringBuilder();
    for (String p : parts) {
      sb.append(Character.toUpperCase(p.charAt(0))).append(p.substring(1));
    }
    return sb.toString();
  }
}

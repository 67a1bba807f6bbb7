package io.gpufleet.core.outcome;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Sends a run's outcome everywhere it belongs, the same way for every function: one log line, EMF
 * metrics, the function's own deliveries (a Kubernetes Event ...), an EventBridge event and a
 * notification (SNS, Slack), in that order. What each of those says is the function's {@link
 * Mapping}; that a failing sink is logged and counted ({@code ReportFailures}) and never fails the
 * run is this class's ({@link Sinks#guarded}).
 *
 * @param <O> the function's outcome
 */
public final class OutcomeReporter<O> {
  private final Mapping<O> mapping;
  private final Logger log;
  private final MetricsPort metrics;
  private final EventPublisherPort publisher;
  private final NotifierPort notifier;

  /** Logs under the mapping's class name. */
  public OutcomeReporter(
      Mapping<O> mapping,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier) {
    this.mapping = mapping;
    this.log = LoggerFactory.getLogger(mapping.getClass());
    this.metrics = metrics;
    this.publisher = publisher;
    this.notifier = notifier;
  }

  /** What one function's outcome says to each sink. */
  public interface Mapping<O> {
    /** The JSON log line every outcome gets. */
    LogLine logLine(O outcome);

    /** The EMF metrics of the outcome. */
    void count(O outcome, MetricsPort metrics);

    /** The function's own sinks, delivered (guarded) before the event and the notification. */
    default List<Delivery> deliveries(O outcome) {
      return List.of();
    }

    /** The EventBridge event, if this outcome is one downstream automation hears of. */
    default Optional<Event> event(O outcome) {
      return Optional.empty();
    }

    /** The notification, if this outcome is one a person is told of. */
    default Optional<Notice> notice(O outcome) {
      return Optional.empty();
    }
  }

  /** A log line: SLF4J format and arguments (structured entries among them) at a level. */
  public record LogLine(Level level, String format, Object... arguments) {}

  /** A delivery to a named sink. */
  public record Delivery(String sink, Runnable action) {}

  /** An outcome event: its detail-type, its detail (serialised as JSON) and its resources. */
  public record Event(String detailType, Object detail, List<String> resources) {}

  /** A notification: subject and body. */
  public record Notice(String subject, String body) {}

  /** Sends {@code outcome} to every sink its mapping names; returns it. */
  public O report(O outcome) {
    var line = mapping.logLine(outcome);
    switch (line.level()) {
      case ERROR -> log.error(line.format(), line.arguments());
      case WARN -> log.warn(line.format(), line.arguments());
      case INFO -> log.info(line.format(), line.arguments());
      case DEBUG -> log.debug(line.format(), line.arguments());
      case TRACE -> log.trace(line.format(), line.arguments());
    }
    mapping.count(outcome, metrics);
    for (Delivery d : mapping.deliveries(outcome)) {
      deliver(d.sink(), d.action());
    }
    mapping
        .event(outcome)
        .ifPresent(
            e ->
                deliver(
                    "eventbridge",
                    () -> publisher.publish(e.detailType(), e.detail(), e.resources())));
    mapping
        .notice(outcome)
        .ifPresent(n -> deliver("notification", () -> notifier.notify(n.subject(), n.body())));
    return outcome;
  }

  /** One delivery outside {@link #report} (during a run), guarded the same way. */
  public void deliver(String sink, Runnable action) {
    Sinks.guarded(metrics, log, sink, action);
  }

  /**
   * A delivery with an answer (a store that returns where it kept the outcome), guarded the same
   * way: empty when the sink failed.
   */
  public <T> Optional<T> deliverReturning(String sink, Supplier<Optional<T>> action) {
    var answer = new AtomicReference<Optional<T>>(Optional.empty());
    deliver(sink, () -> answer.set(action.get()));
    return answer.get();
  }

  /** An enum constant as a metric word: {@code NOT_IN_CLUSTER} → {@code NotInCluster}. */
  public static String pascal(String enumName) {
    var sb = new StringBuilder();
    for (String p : enumName.toLowerCase(Locale.ROOT).split("_")) {
      sb.append(Character.toUpperCase(p.charAt(0))).append(p.substring(1));
    }
    return sb.toString();
  }
}

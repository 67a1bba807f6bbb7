package io.gpufleet.core.outcome;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.outcome.OutcomeReporter.Delivery;
import io.gpufleet.core.outcome.OutcomeReporter.Event;
import io.gpufleet.core.outcome.OutcomeReporter.LogLine;
import io.gpufleet.core.outcome.OutcomeReporter.Notice;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class OutcomeReporterTest {
  /** Every sink's deliveries in one list, in order; metrics as {@code name=value UNIT}. */
  final RecordedMetrics metrics = new RecordedMetrics();

  final List<String> sent = metrics.lines;
  final EventPublisherPort publisher =
      (detailType, detail, resources) -> sent.add("event " + detailType + " " + detail + resources);
  final NotifierPort notifier =
      (subject, message) -> sent.add("notice " + subject + ": " + message);

  /** A run outcome: how many things were done, and whether a person must hear of it. */
  record Done(int things, boolean alarming) {}

  /** A mapping with every sink: a side delivery, an event always, a notice when alarming. */
  final class Mapping implements OutcomeReporter.Mapping<Done> {
    @Override
    public LogLine logLine(Done d) {
      return new LogLine(d.alarming() ? Level.WARN : Level.INFO, "done {}", d.things());
    }

    @Override
    public void count(Done d, MetricsPort m) {
      m.add("Things", d.things(), MetricsPort.Unit.COUNT);
    }

    @Override
    public List<Delivery> deliveries(Done d) {
      return List.of(new Delivery("kubernetes event", () -> sent.add("k8s " + d.things())));
    }

    @Override
    public Optional<Event> event(Done d) {
      return Optional.of(new Event("Done", d.things(), List.of("arn:x")));
    }

    @Override
    public Optional<Notice> notice(Done d) {
      return d.alarming()
          ? Optional.of(new Notice("alarm", "did " + d.things()))
          : Optional.empty();
    }
  }

  @Test
  void shouldSendEachSinkWhatTheMappingSaysInOrder() {
    var reporter = new OutcomeReporter<>(new Mapping(), metrics, publisher, notifier);

    var reported = reporter.report(new Done(3, true));

    assertThat(reported).isEqualTo(new Done(3, true));
    assertThat(sent)
        .containsExactly("Things=3.0 COUNT", "k8s 3", "event Done 3[arn:x]", "notice alarm: did 3");
  }

  @Test
  void shouldSendNoNoticeWhenTheMappingHasNone() {
    new OutcomeReporter<>(new Mapping(), metrics, publisher, notifier).report(new Done(1, false));

    assertThat(sent).containsExactly("Things=1.0 COUNT", "k8s 1", "event Done 1[arn:x]");
  }

  @Test
  void shouldCountAFailingSinkAndStillDeliverToTheOthers() {
    EventPublisherPort down =
        (detailType, detail, resources) -> {
          throw new IllegalStateException("bus unavailable");
        };
    new OutcomeReporter<>(new Mapping(), metrics, down, notifier).report(new Done(2, true));

    assertThat(sent)
        .containsExactly(
            "Things=2.0 COUNT", "k8s 2", "ReportFailures=1.0 COUNT", "notice alarm: did 2");
  }

  @Test
  void shouldAnswerEmptyWhenADeliveryWithAnAnswerFails() {
    var reporter = new OutcomeReporter<>(new Mapping(), metrics, publisher, notifier);

    assertThat(reporter.deliverReturning("store", () -> Optional.of("s3://b/k")))
        .contains("s3://b/k");
    assertThat(
            reporter.<String>deliverReturning(
                "store",
                () -> {
                  throw new IllegalStateException("S3 down");
                }))
        .isEmpty();
    assertThat(sent).containsExactly("ReportFailures=1.0 COUNT");
  }

  @Test
  void shouldNameAnEnumConstantAsAMetricWord() {
    assertThat(OutcomeReporter.pascal("NOT_IN_CLUSTER")).isEqualTo("NotInCluster");
    assertThat(OutcomeReporter.pascal("GO")).isEqualTo("Go");
  }
}

package io.gpufleet.core.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.RecordedMetrics;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LambdaEntryTest {
  final RecordedMetrics metrics = new RecordedMetrics();
  final List<String> events = metrics.lines;

  /** A decoder that takes a number and refuses anything else, precisely. */
  static int number(byte[] payload) {
    String text = new String(payload, StandardCharsets.UTF_8).strip();
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new ConfigException("payload must be a whole number, got '" + text + "'");
    }
  }

  String invoke(LambdaEntry<?> entry, String payload) throws IOException {
    var out = new ByteArrayOutputStream();
    entry.handle(
        new ByteArrayInputStream(payload.getBytes(StandardCharsets.UTF_8)),
        out,
        new LocalContext("test", 30_000));
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void shouldAnswerTheServiceResultAsJsonAndFlushTheMetricsAfterIt() throws IOException {
    // Given an entry that doubles a number and counts the run
    var entry =
        LambdaEntry.of(
            LambdaEntryTest::number,
            (n, context) -> {
              metrics.add("Runs", 1, MetricsPort.Unit.COUNT);
              return Map.of("doubled", n * 2, "function", context.getFunctionName());
            },
            metrics);

    // When it is invoked, Then it answers the result as JSON and flushes after the run
    assertThat(invoke(entry, "21")).contains("\"doubled\":42").contains("\"function\":\"test\"");
    assertThat(events).containsExactly("Runs=1.0 COUNT", "flush");
  }

  @Test
  void shouldAnswerARefusedPayloadWithTheMappedRejectionWithoutRunningTheService()
      throws IOException {
    // Given an entry that maps a refused payload to an acknowledged outcome
    var entry =
        LambdaEntry.of(
                LambdaEntryTest::number,
                (n, context) -> {
                  throw new AssertionError("the service must not run on a refused payload");
                },
                metrics)
            .rejecting(e -> Map.of("status", "REJECTED", "reason", e.getMessage()));

    // When a payload that is not a number arrives, Then the answer carries the decoder's reason
    assertThat(invoke(entry, "twelve"))
        .contains("\"status\":\"REJECTED\"")
        .contains("payload must be a whole number, got 'twelve'");
    assertThat(events).containsExactly("flush");
  }

  @Test
  void shouldHandARefusalToLambdaWhenNoRejectionIsMapped() {
    var entry = LambdaEntry.of(LambdaEntryTest::number, (n, context) -> n, metrics);

    assertThatThrownBy(() -> invoke(entry, "twelve"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("got 'twelve'");
    assertThat(events).containsExactly("flush");
  }

  @Test
  void shouldCountAFailedInvocationThenRethrowItSoLambdaRetries() {
    // Given an entry whose service cannot reach what it needs
    var entry =
        LambdaEntry.of(
                LambdaEntryTest::number,
                (n, context) -> {
                  throw new IllegalStateException("cluster unreachable");
                },
                metrics)
            .rejecting(e -> "rejected")
            .countingFailuresAs(io.gpufleet.core.outcome.Metric.count("EventsFailed"));

    // When it is invoked, Then the failure is counted, flushed, and goes to Lambda unchanged
    assertThatThrownBy(() -> invoke(entry, "1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("cluster unreachable");
    assertThat(events).containsExactly("EventsFailed=1.0 COUNT", "flush");
  }

  @Test
  void shouldCloseItsResourcesAndNotThrowWhenClosingFails() {
    var closed = new ArrayList<String>();
    var entry =
        LambdaEntry.of(LambdaEntryTest::number, (n, context) -> n, metrics)
            .closing(() -> closed.add("client"));
    entry.close();
    assertThat(closed).containsExactly("client");

    LambdaEntry.of(LambdaEntryTest::number, (n, context) -> n, metrics)
        .closing(
            () -> {
              throw new IOException("already closed");
            })
        .close();
    LambdaEntry.of(LambdaEntryTest::number, (n, context) -> n, metrics).close();
  }
}

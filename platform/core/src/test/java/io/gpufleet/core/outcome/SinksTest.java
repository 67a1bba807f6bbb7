package io.gpufleet.core.outcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class SinksTest {
  final RecordedMetrics metrics = new RecordedMetrics();
  final List<String> counted = metrics.lines;

  @Test
  void shouldCountAndSwallowAFailingSink() {
    assertThatCode(
            () ->
                Sinks.guarded(
                    metrics,
                    LoggerFactory.getLogger(SinksTest.class),
                    "eventbridge",
                    () -> {
                      throw new IllegalStateException("bus unavailable");
                    }))
        .doesNotThrowAnyException();

    assertThat(counted).containsExactly("ReportFailures=1.0 COUNT");
  }

  @Test
  void shouldRunASinkThatWorksWithoutCountingAFailure() {
    var ran = new ArrayList<String>();

    Sinks.guarded(metrics, LoggerFactory.getLogger(SinksTest.class), "sns", () -> ran.add("sns"));

    assertThat(ran).containsExactly("sns");
    assertThat(counted).isEmpty();
  }
}

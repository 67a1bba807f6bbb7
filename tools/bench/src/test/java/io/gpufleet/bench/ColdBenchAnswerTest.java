package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ColdBenchAnswerTest {

  @Test
  void aRunIsTimedToItsAnswerLineNotToTheEndOfTheChildsOutput() throws Exception {
    String stdout = "{\"level\":\"WARN\",\"message\":\"a log line\"}\n{\"status\":\"DRAINED\"}\n\n";
    var ticks = new AtomicLong(); // each reading of the clock is one tick later

    var out =
        ColdBench.Answered.read(
            new ByteArrayInputStream(stdout.getBytes(StandardCharsets.UTF_8)),
            ticks::incrementAndGet);

    assertThat(out.answer()).isEqualTo("{\"status\":\"DRAINED\"}");
    // tick 1: start, 2: the log line, 3: the answer; the blank line and the end read no clock
    assertThat(out.answeredAtNanos()).isEqualTo(3);
    assertThat(ticks.get()).isEqualTo(3);
    assertThat(out.stdout()).isEqualTo(stdout.stripTrailing() + "\n\n");
  }

  @Test
  void aChildThatPrintsNothingHasNoAnswer() throws Exception {
    var out = ColdBench.Answered.read(new ByteArrayInputStream(new byte[0]), () -> 7L);
    assertThat(out.answer()).isEmpty();
  }
}

package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bad --memory, --function and tune arguments get a precise error before anything starts. */
class BenchShareArgsTest {
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int run(String... argv) {
    return Main.run(
        List.of(argv),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void shouldRefuseAMemorySizeLambdaDoesNotOffer() {
    assertThat(run("bench", "drain", "--memory", "64")).isEqualTo(2);
    assertThat(err()).contains("--memory=64 must be between 128");
  }

  @Test
  void shouldNameTheFunctionsColdKnows() {
    assertThat(run("bench", "cold", "--function", "nope")).isEqualTo(2);
    assertThat(err())
        .contains("unknown --function nope")
        .contains("interruption-drain")
        .contains("cost-report");
  }

  @Test
  void shouldAskTuneForAFunction() {
    assertThat(run("bench", "tune")).isEqualTo(2);
    assertThat(err()).contains("gpufleet bench tune: Missing required parameter: 'FUNCTION'");
  }

  @Test
  void shouldRefuseToTuneAnUnknownFunction() {
    assertThat(run("bench", "tune", "nope")).isEqualTo(2);
    assertThat(err()).contains("bench tune: unknown function 'nope'");
  }

  @Test
  void shouldRefuseSweepSizesLambdaDoesNotOffer() {
    assertThat(run("bench", "tune", "interruption-drain", "--sizes", "1024,20000")).isEqualTo(2);
    assertThat(err()).contains("--memory 20000: Lambda memory sizes are 128 to 10240 MB");
  }
}

package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.ParameterNotFoundException;

/**
 * {@code gpufleet settings}: a document is checked by the function's schema before anything is
 * written; {@code put} writes it where the deployed function reads it (moto's SSM), {@code show}
 * reads it back with every default beside it.
 */
class SettingsCommandTest {
  @RegisterExtension
  static final AwsEmulatorExtension AWS = AwsEmulatorExtension.forServices("ssm");

  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();
  final PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
  final PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);

  @Test
  void shouldCheckAValidDocumentFromTheCommandLine(@TempDir Path dir) throws Exception {
    Path doc = Files.writeString(dir.resolve("drain.yaml"), "DRAIN_EVICTION_CONCURRENCY: 64\n");

    int code = Main.run(List.of("settings", "check", "interruption-drain", doc.toString()), o, e);

    assertThat(code).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("valid for interruption-drain (1 knobs set)");
  }

  @Test
  void shouldNameEveryProblemAndExitTwo(@TempDir Path dir) throws Exception {
    Path doc =
        Files.writeString(
            dir.resolve("cost.yaml"), "COST_ALLOCATION_RULE: gpu\nCOST_PRICING_CONCURENCY: 8\n");

    int code = Main.run(List.of("settings", "check", "cost-report", doc.toString()), o, e);

    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("COST_PRICING_CONCURENCY: unknown field (known: COST_ALLOCATION_RULE,");
  }

  @Test
  void shouldWriteOnlyAValidDocumentAndShowItWithTheDefaults(@TempDir Path dir) throws Exception {
    try (var ssm = AWS.emulator().clients().build(SsmClient.builder())) {
      Path bad = Files.writeString(dir.resolve("bad.yaml"), "SCHEDULE_MAX_CHANGES: 0\n");
      assertThat(SettingsCommand.put(ssm, "prod", "disruption-schedule", bad, o, e)).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("SCHEDULE_MAX_CHANGES: ")
          .contains("(nothing written)");
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> ssm.getParameter(r -> r.name("/gpufleet/prod/disruption-schedule")))
          .isInstanceOf(ParameterNotFoundException.class);

      Path good = Files.writeString(dir.resolve("good.yaml"), "SCHEDULE_MAX_CHANGES: 50\n");
      assertThat(SettingsCommand.put(ssm, "prod", "disruption-schedule", good, o, e)).isZero();
      assertThat(
              ssm.getParameter(r -> r.name("/gpufleet/prod/disruption-schedule"))
                  .parameter()
                  .value())
          .isEqualTo("SCHEDULE_MAX_CHANGES: 50\n");

      out.reset();
      assertThat(SettingsCommand.show(ssm, "prod", "disruption-schedule", o, e)).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8))
          .contains("ssm:/gpufleet/prod/disruption-schedule\n")
          .containsPattern("SCHEDULE_MAX_CHANGES +50  \\(document\\)")
          .containsPattern("SCHEDULE_MAX_REPLICAS +100  \\(default\\)");
    }
  }

  @Test
  void shouldShowTheDefaultsWhenTheStackHasNoDocument() throws Exception {
    try (var ssm = AWS.emulator().clients().build(SsmClient.builder())) {
      assertThat(SettingsCommand.show(ssm, "empty", "interruption-drain", o, e)).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8))
          .contains("ssm:/gpufleet/empty/interruption-drain (no document: defaults)")
          .containsPattern("DRAIN_EVICTION_CONCURRENCY +128  \\(default\\)");
    }
  }
}

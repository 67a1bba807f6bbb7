package io.gpufleet.drain.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.drain.DrainSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drain's settings document as its init reads it: checked by the published schema on the jar's
 * classpath (schemas/settings/interruption-drain.schema.json), every problem with its path, then
 * laid over the environment and read by {@link DrainSettings} as if the variables were set.
 */
class DrainSettingsDocumentTest {
  static final String FUNCTION = DrainWiring.FUNCTION;

  @Test
  void shouldApplyTheDocumentsKnobsOverTheDefaults(@TempDir Path dir) throws Exception {
    Path doc = dir.resolve("drain.yaml");
    Files.writeString(
        doc,
        """
        # evict fewer at once, stop earlier, change nothing yet
        DRAIN_EVICTION_CONCURRENCY: 32
        DRAIN_DEADLINE_MARGIN: 20s
        DRAIN_DRY_RUN: true
        """);
    Settings env =
        SettingsDocument.apply(
            new Settings(Map.of("CLUSTER_NAME", "gpu", SettingsDocument.VARIABLE, "file:" + doc)),
            FUNCTION,
            () -> {
              throw new AssertionError("a file document needs no AWS client");
            });

    DrainSettings settings = DrainSettings.from(env);

    assertThat(settings.evictionConcurrency()).isEqualTo(32);
    assertThat(settings.deadlineMargin()).isEqualTo(Duration.ofSeconds(20));
    assertThat(settings.options().dryRun()).isTrue();
  }

  @Test
  void shouldKeepEveryDefaultWithoutADocument(@TempDir Path dir) {
    Settings given =
        new Settings(
            Map.of(
                "CLUSTER_NAME", "gpu", SettingsDocument.VARIABLE, "file:" + dir.resolve("none")));

    Settings env = SettingsDocument.apply(given, FUNCTION, () -> null);

    assertThat(DrainSettings.from(env).evictionConcurrency()).isEqualTo(128);
    assertThat(DrainSettings.from(env).options().dryRun()).isFalse();
  }

  @Test
  void shouldNameEveryProblemByItsPathBeforeAnythingRuns() {
    String doc =
        """
        DRAIN_EVICTION_CONCURRENCY: 5000
        DRAIN_DRY_RUN: maybe
        DRAIN_DRYRUN: true
        LIFECYCLE_RESULT_AT_LIMIT: RETRY
        DRAIN_DEADLINE_MARGIN: soon
        """;

    assertThatThrownBy(() -> SettingsDocument.values(FUNCTION, doc, "ssm:/gpufleet/s/drain"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "settings document ssm:/gpufleet/s/drain does not match"
                + " schemas/settings/interruption-drain.schema.json: ")
        .hasMessageContaining("DRAIN_EVICTION_CONCURRENCY: ")
        .hasMessageContaining("DRAIN_DRY_RUN: ")
        .hasMessageContaining("DRAIN_DRYRUN: unknown field (known: DRAIN_ACTIONS,")
        .hasMessageContaining("LIFECYCLE_RESULT_AT_LIMIT: ")
        .hasMessageContaining(
            "DRAIN_DEADLINE_MARGIN: 'soon' is not a duration (15, 15s, 500ms, 2m or 1h)");
  }

  @Test
  void shouldRefuseWhatTheTemplateDecides() {
    // the taint key is bound into the admission policy from the template: no document may move it
    assertThatThrownBy(
            () -> SettingsDocument.values(FUNCTION, "DRAIN_TAINT_KEY: other/key\n", "doc.yaml"))
        .hasMessageContaining("DRAIN_TAINT_KEY: unknown field");
  }

  @Test
  void shouldRefuseAKnobSetBothInTheEnvironmentAndTheDocument(@TempDir Path dir) throws Exception {
    Path doc = dir.resolve("drain.yaml");
    Files.writeString(doc, "DRAIN_DRY_RUN: true\n");
    var given =
        new Settings(Map.of(SettingsDocument.VARIABLE, "file:" + doc, "DRAIN_DRY_RUN", "false"));

    assertThatThrownBy(() -> SettingsDocument.apply(given, FUNCTION, () -> null))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "DRAIN_DRY_RUN is set both in the environment ('false') and in the settings document "
                + doc
                + " ('true'): keep one");
  }

  @Test
  void shouldRefuseADocumentThatIsNotYaml() {
    assertThatThrownBy(
            () -> SettingsDocument.values(FUNCTION, "DRAIN_DRY_RUN: [true\n", "doc.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("settings document doc.yaml is not YAML or JSON (line ");
  }

  @Test
  void shouldRefuseALocationItCannotRead() {
    assertThatThrownBy(
            () ->
                SettingsDocument.apply(
                    new Settings(Map.of(SettingsDocument.VARIABLE, "/gpufleet/s/drain")),
                    FUNCTION,
                    () -> null))
        .hasMessage(
            "SETTINGS_DOCUMENT='/gpufleet/s/drain' is not ssm:/parameter/name, s3://bucket/key or"
                + " file:/path");
  }
}

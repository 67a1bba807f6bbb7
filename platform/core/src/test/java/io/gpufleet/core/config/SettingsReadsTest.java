package io.gpufleet.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reads {@link Settings} reports: what docs/environment.md is generated from. */
class SettingsReadsTest {
  final List<Settings.Read> reads = new ArrayList<>();

  Settings settings(Map<String, String> values) {
    return new Settings(values, reads::add);
  }

  @Test
  void shouldReportEveryReadWithItsKindFallbackAndAcceptedValues() {
    var s = settings(Map.of("N", "5"));
    s.integer("N", 8, 1, 64);
    s.duration("D", Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofHours(1));
    s.bool("B", true);
    s.oneOf("E", "none", List.of("none", "some", "all"));
    s.required("N");
    s.optional("O");
    s.string("S", "x");

    assertThat(reads)
        .containsExactly(
            new Settings.Read("N", "integer", "8", "1..64"),
            new Settings.Read("D", "duration", "1m", "30s..1h"),
            new Settings.Read("B", "bool", "true", "true | false (also yes/no, 1/0, on/off)"),
            new Settings.Read("E", "one-of", "none", "none | some | all"),
            new Settings.Read("N", "required", null, null),
            new Settings.Read("O", "string", null, null),
            new Settings.Read("S", "string", "x", null));
  }

  @Test
  void shouldRejectADurationBelowItsMinimumWithTheMinimum() {
    assertThatThrownBy(
            () ->
                settings(Map.of("D", "10s"))
                    .duration(
                        "D", Duration.ofMinutes(1), Duration.ofSeconds(30), Duration.ofHours(1)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("D='10s' must be at least 30s");
  }

  @Test
  void shouldRejectAValueOutsideTheAllowedOnesNamingThem() {
    assertThatThrownBy(
            () -> settings(Map.of("E", "most")).oneOf("E", "none", List.of("none", "all")))
        .hasMessage("E='most' is not none or all");
    assertThatThrownBy(
            () -> settings(Map.of("E", "most")).oneOf("E", "none", List.of("none", "some", "all")))
        .hasMessage("E='most' is not one of [none, some, all]");
    assertThat(settings(Map.of()).oneOf("E", "none", List.of("none", "all"))).isEqualTo("none");
  }

  @Test
  void shouldAnswerTheGivenSettingsForTheEnvironmentOnlyInsideWithEnvironment() {
    var given = settings(Map.of("GPUFLEET_DOC_PROBE", "inside"));
    String inside =
        Settings.withEnvironment(
            given, () -> Settings.fromEnvironment().string("GPUFLEET_DOC_PROBE", "outside"));
    assertThat(inside).isEqualTo("inside");
    assertThat(reads).extracting(Settings.Read::name).containsExactly("GPUFLEET_DOC_PROBE");
    assertThat(Settings.fromEnvironment().string("GPUFLEET_DOC_PROBE", "outside"))
        .isEqualTo("outside");
  }

  @Test
  void shouldWriteDurationsTheWayTheyAreRead() {
    assertThat(Settings.format(Duration.ofHours(48))).isEqualTo("48h");
    assertThat(Settings.format(Duration.ofMinutes(90))).isEqualTo("90m");
    assertThat(Settings.format(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(Settings.format(Duration.ofMillis(500))).isEqualTo("500ms");
    assertThat(Settings.format(Duration.ZERO)).isEqualTo("0s");
    for (var d : List.of("48h", "90m", "90s", "500ms", "0s")) {
      assertThat(Settings.format(Settings.parseDuration("X", d))).isEqualTo(d);
    }
  }
}

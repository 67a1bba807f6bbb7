package io.gpufleet.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SettingsTest {

  private static Settings with(String name, String value) {
    var values = new HashMap<String, String>();
    values.put(name, value);
    return new Settings(values);
  }

  private static final Settings EMPTY = new Settings(Map.of());

  @Nested
  class Strings {

    @Test
    void shouldTrimAValueAndTreatBlankAsUnset() {
      assertThat(with("CLUSTER_NAME", "  prod-gpu \n").optional("CLUSTER_NAME"))
          .hasValue("prod-gpu");
      assertThat(with("CLUSTER_NAME", "   ").optional("CLUSTER_NAME")).isEmpty();
      assertThat(EMPTY.optional("CLUSTER_NAME")).isEqualTo(Optional.empty());
    }

    @Test
    void shouldFallBackWhenAStringIsUnset() {
      assertThat(EMPTY.string("NAMESPACE", "default")).isEqualTo("default");
      assertThat(with("NAMESPACE", "ml").string("NAMESPACE", "default")).isEqualTo("ml");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t"})
    void shouldNameTheVariableWhenARequiredValueIsBlank(String blank) {
      assertThatThrownBy(() -> with("CLUSTER_NAME", blank).required("CLUSTER_NAME"))
          .isInstanceOf(ConfigException.class)
          .hasMessage("CLUSTER_NAME is required but not set");
    }

    @Test
    void shouldNameTheVariableWhenARequiredValueIsMissing() {
      assertThatThrownBy(() -> EMPTY.required("TOPIC_ARN"))
          .isInstanceOf(ConfigException.class)
          .hasMessage("TOPIC_ARN is required but not set");
    }

    @Test
    void shouldNotSeeLaterChangesToTheSourceMap() {
      var source = new HashMap<String, String>();
      source.put("DRY_RUN", "true");
      var settings = new Settings(source);

      source.put("DRY_RUN", "false");

      assertThat(settings.bool("DRY_RUN", false)).isTrue();
    }
  }

  @Nested
  class Booleans {

    @ParameterizedTest(name = "''{0}'' -> {1}")
    @CsvSource({
      "true, true",
      "TRUE, true",
      "yes, true",
      "Yes, true",
      "1, true",
      "on, true",
      "' On ', true",
      "false, false",
      "False, false",
      "no, false",
      "NO, false",
      "0, false",
      "off, false"
    })
    void shouldParseTheUsualSpellings(String value, boolean expected) {
      assertThat(with("DRY_RUN", value).bool("DRY_RUN", !expected)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldFallBackWhenUnsetOrBlank(boolean fallback) {
      assertThat(EMPTY.bool("DRY_RUN", fallback)).isEqualTo(fallback);
      assertThat(with("DRY_RUN", " ").bool("DRY_RUN", fallback)).isEqualTo(fallback);
    }

    @ParameterizedTest
    @ValueSource(strings = {"maybe", "2", "y", "enabled", "truee"})
    void shouldRejectAnythingElseNamingTheVariable(String value) {
      assertThatThrownBy(() -> with("DRY_RUN", value).bool("DRY_RUN", false))
          .isInstanceOf(ConfigException.class)
          .hasMessage("DRY_RUN='" + value + "' is not true or false");
    }
  }

  @Nested
  class Integers {

    @ParameterizedTest(name = "''{0}'' -> {1}")
    @CsvSource({"1, 1", "64, 64", "512, 512", "' 32 ', 32", "007, 7"})
    void shouldParseWholeNumbersWithinTheRangeInclusive(String value, int expected) {
      assertThat(
              with("MAX_PARALLEL_EVICTIONS", value).integer("MAX_PARALLEL_EVICTIONS", 16, 1, 512))
          .isEqualTo(expected);
    }

    @Test
    void shouldFallBackWhenUnset() {
      assertThat(EMPTY.integer("MAX_PARALLEL_EVICTIONS", 16, 1, 512)).isEqualTo(16);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "513", "100000"})
    void shouldRejectAValueOutsideTheRangeNamingTheVariableAndTheRange(String value) {
      assertThatThrownBy(
              () ->
                  with("MAX_PARALLEL_EVICTIONS", value)
                      .integer("MAX_PARALLEL_EVICTIONS", 16, 1, 512))
          .isInstanceOf(ConfigException.class)
          .hasMessage(
              "MAX_PARALLEL_EVICTIONS="
                  + Integer.parseInt(value)
                  + " is outside the allowed range 1..512");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ten", "1.5", "4x", "1e3", "99999999999", "0x10"})
    void shouldRejectAValueThatIsNotAWholeNumber(String value) {
      assertThatThrownBy(
              () ->
                  with("MAX_PARALLEL_EVICTIONS", value)
                      .integer("MAX_PARALLEL_EVICTIONS", 16, 1, 512))
          .isInstanceOf(ConfigException.class)
          .hasMessage("MAX_PARALLEL_EVICTIONS='" + value + "' is not a whole number");
    }
  }

  @Nested
  class Durations {
    private static final Duration MAX = Duration.ofMinutes(2);

    @ParameterizedTest(name = "''{0}'' -> {1}")
    @CsvSource({
      "15, PT15S",
      "15s, PT15S",
      "2m, PT2M",
      "500ms, PT0.5S",
      "0, PT0S",
      "120s, PT2M",
      "' 30s ', PT30S"
    })
    void shouldParseSecondsOrAUnit(String value, Duration expected) {
      assertThat(
              with("SAFETY_MARGIN", value).duration("SAFETY_MARGIN", Duration.ofSeconds(10), MAX))
          .isEqualTo(expected);
    }

    @Test
    void shouldParseHours() {
      assertThat(
              with("REPORT_WINDOW", "24h")
                  .duration("REPORT_WINDOW", Duration.ZERO, Duration.ofDays(7)))
          .isEqualTo(Duration.ofDays(1));
    }

    @Test
    void shouldFallBackWhenUnset() {
      assertThat(EMPTY.duration("SAFETY_MARGIN", Duration.ofSeconds(10), MAX))
          .isEqualTo(Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @ValueSource(strings = {"121s", "3m", "1h", "120001ms"})
    void shouldRejectADurationAboveTheMaximumNamingTheVariable(String value) {
      assertThatThrownBy(
              () -> with("SAFETY_MARGIN", value).duration("SAFETY_MARGIN", Duration.ZERO, MAX))
          .isInstanceOf(ConfigException.class)
          .hasMessage("SAFETY_MARGIN='" + value + "' must be between 0 and PT2M");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1s", "15 s", "1.5s", "2d", "PT15S", "s", "fifteen", "15S"})
    void shouldRejectAValueThatIsNotADurationWithExamples(String value) {
      assertThatThrownBy(
              () -> with("SAFETY_MARGIN", value).duration("SAFETY_MARGIN", Duration.ZERO, MAX))
          .isInstanceOf(ConfigException.class)
          .hasMessage(
              "SAFETY_MARGIN='"
                  + value
                  + "' is not a duration (examples: 15, 15s, 2m, 1h30m, 500ms)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"99999999999999999999", "9999999999999999h", "9223372036854775807m"})
    void shouldRejectADurationTooLargeToRepresentNamingTheVariable(String value) {
      assertThatThrownBy(
              () -> with("SAFETY_MARGIN", value).duration("SAFETY_MARGIN", Duration.ZERO, MAX))
          .isInstanceOf(ConfigException.class)
          .hasMessage("SAFETY_MARGIN='" + value + "' is too large to be a duration");
    }
  }
}

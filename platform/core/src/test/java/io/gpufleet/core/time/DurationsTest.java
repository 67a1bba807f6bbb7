package io.gpufleet.core.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource({"15,15000", "15s,15000", "2m,120000", "500ms,500", "1h30m,5400000", "1m30s,90000"})
  void shouldReadGoNotationAndBareSeconds(String text, long millis) {
    assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest(name = "[{index}] ''{0}''")
  @ValueSource(strings = {"", "soon", "1.5h", "-5s", "5 s", "1d", "m"})
  void shouldRefuseWhatIsNotADuration(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not a duration");
  }
}

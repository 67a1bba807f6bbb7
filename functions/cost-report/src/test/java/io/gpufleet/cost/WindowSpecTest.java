package io.gpufleet.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WindowSpecTest {
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T02:17:45Z"), ZoneOffset.UTC);

  @ParameterizedTest
  @CsvSource({
    "1h, 2026-11-30T01:17:45Z, 2026-11-30T02:17:45Z",
    "24h, 2026-11-29T02:17:45Z, 2026-11-30T02:17:45Z",
    "7d, 2026-11-23T02:17:45Z, 2026-11-30T02:17:45Z",
    "last-hour, 2026-11-30T01:00:00Z, 2026-11-30T02:00:00Z",
    "last-day, 2026-11-29T00:00:00Z, 2026-11-30T00:00:00Z",
    "mtd, 2026-11-01T00:00:00Z, 2026-11-30T02:17:45Z",
    "2026-11-01T00:00Z/2026-11-02T00:00Z, 2026-11-01T00:00:00Z, 2026-11-02T00:00:00Z",
    "2026-11-29T12:00+01:00/2026-12-05T00:00Z, 2026-11-29T11:00:00Z, 2026-11-30T02:17:45Z"
  })
  void shouldResolveWindows(String spec, Instant start, Instant end) {
    var w = WindowSpec.resolve(spec, CLOCK);

    assertThat(w.start()).isEqualTo(start);
    assertThat(w.end()).isEqualTo(end);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0h|is empty",
        "yesterday|is not one of",
        "2026-11-02T00:00Z/2026-11-01T00:00Z|end is not after start",
        "2026-12-01T00:00Z/2026-12-02T00:00Z|starts in the future",
        "2026-11-01/2026-11-02|is not an ISO-8601 instant",
        "100d|longer than 93 days"
      })
  void shouldRejectBadWindowsPrecisely(String spec, String message) {
    assertThatThrownBy(() -> WindowSpec.resolve(spec, CLOCK))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message);
  }

  @ParameterizedTest
  @CsvSource({
    // node lifetime              -> clipped to [01:00, 02:00)
    "2026-11-30T00:00:00Z, 2026-11-30T03:00:00Z, 2026-11-30T01:00:00Z, 2026-11-30T02:00:00Z",
    "2026-11-30T01:30:00Z, , 2026-11-30T01:30:00Z, 2026-11-30T02:00:00Z",
    "2026-11-30T00:00:00Z, 2026-11-30T01:15:00Z, 2026-11-30T01:00:00Z, 2026-11-30T01:15:00Z"
  })
  void shouldClipLifetimesToTheWindow(Instant from, Instant to, Instant a, Instant b) {
    var w = WindowSpec.resolve("last-hour", CLOCK);

    var clipped = w.clip(from, to);

    assertThat(clipped).containsExactly(a, b);
  }

  @ParameterizedTest
  @CsvSource({"2026-11-30T00:00:00Z, 2026-11-30T01:00:00Z", "2026-11-30T02:00:00Z, "})
  void shouldDropLifetimesOutsideTheWindow(Instant from, Instant to) {
    assertThat(WindowSpec.resolve("last-hour", CLOCK).clip(from, to)).isNull();
  }
}

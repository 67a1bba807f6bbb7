package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** bench cold's schedule policy: off-hours all day, whatever the hour the bench runs at. */
class ColdScheduleTest {
  @Test
  void shouldMakeTodayAndTomorrowInThePolicysZoneHolidays() {
    String policy = "timeZone: Europe/Berlin\nholidays: [2026-12-24]\nwindows: {}\n";

    // 23:30 UTC is already the next day in Berlin
    assertThat(ColdBench.offHoursToday(policy, Instant.parse("2026-12-01T23:30:00Z")))
        .isEqualTo(
            "timeZone: Europe/Berlin\nholidays: [2026-12-02, 2026-12-03, 2026-12-24]\nwindows: {}\n");
    assertThat(
            ColdBench.offHoursToday(
                "timeZone: UTC\nholidays: []\n", Instant.parse("2026-12-01T23:30:00Z")))
        .isEqualTo("timeZone: UTC\nholidays: [2026-12-01, 2026-12-02]\n");
  }

  @Test
  void shouldRefuseAPolicyWithoutAZoneOrHolidays() {
    assertThatThrownBy(() -> ColdBench.offHoursToday("timeZone: UTC\n", Instant.EPOCH))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("holidays");
  }
}

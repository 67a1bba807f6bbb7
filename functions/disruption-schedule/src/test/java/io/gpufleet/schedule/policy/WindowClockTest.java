package io.gpufleet.schedule.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.schedule.policy.WindowClock.Why;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Windows are judged on the wall clock of the policy's zone. Instants are given in UTC so each row
 * states exactly which side of a DST change it is on.
 */
class WindowClockTest {
  static Policy policy(String zone, String windows, String holidays) {
    return PolicyParser.parse(
        "timeZone: "
            + zone
            + "\ndefaultWindow: off-hours\nwindows:\n"
            + windows
            + (holidays == null ? "" : "\nholidays: " + holidays),
        "test");
  }

  static final Policy BERLIN =
      policy(
          "Europe/Berlin",
          """
            business-hours: { days: mon-fri, hours: "08:00-19:00" }
            early-sunday: { days: [sun], hours: "02:30-05:00" }
          """,
          null);

  /** Europe/Berlin: CET (+01:00) until 2026-03-29 01:00Z, CEST (+02:00) until 2026-10-25 01:00Z. */
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    // Friday before the spring change: 08:00 local is 07:00Z
    "2026-03-27T06:59:00Z, off-hours",
    "2026-03-27T07:00:00Z, business-hours",
    "2026-03-27T17:59:00Z, business-hours",
    "2026-03-27T18:00:00Z, off-hours",
    // Monday after it: 08:00 local is 06:00Z, 19:00 local is 17:00Z
    "2026-03-30T06:00:00Z, business-hours",
    "2026-03-30T05:59:00Z, off-hours",
    "2026-03-30T16:59:00Z, business-hours",
    "2026-03-30T17:00:00Z, off-hours",
    // Sunday 2026-03-29, last Sunday of March: 02:00-03:00 local does not exist; a window from
    // 02:30 begins at the first minute after the gap (03:00 CEST = 01:00Z)
    "2026-03-29T00:59:00Z, off-hours",
    "2026-03-29T01:00:00Z, early-sunday",
    "2026-03-29T02:59:00Z, early-sunday",
    "2026-03-29T03:00:00Z, off-hours",
    // Sunday 2026-10-25, last Sunday of October: 02:30 local happens twice (00:30Z and 01:30Z)
    "2026-10-25T00:29:00Z, off-hours",
    "2026-10-25T00:30:00Z, early-sunday",
    "2026-10-25T01:30:00Z, early-sunday",
    "2026-10-25T03:59:00Z, early-sunday",
    "2026-10-25T04:00:00Z, off-hours",
    // Monday after the autumn change: 08:00 local is 07:00Z again
    "2026-10-26T06:30:00Z, off-hours",
    "2026-10-26T07:00:00Z, business-hours",
    // and Friday before it: 08:00 local was 06:00Z
    "2026-10-23T06:30:00Z, business-hours",
  })
  void shouldFollowTheBerlinWallClockAcrossBothDstChanges(Instant at, String window) {
    assertThat(WindowClock.at(BERLIN, at).name()).isEqualTo(window);
  }

  static final Policy NEW_YORK =
      policy(
          "America/New_York", "  business-hours: { days: mon-fri, hours: \"09:00-17:00\" }", null);

  /**
   * America/New_York: EST (-05:00) until 2026-03-08 07:00Z, EDT (-04:00) until 2026-11-01 06:00Z.
   */
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "2026-03-06T14:00:00Z, business-hours", // Fri 09:00 EST
    "2026-03-06T13:30:00Z, off-hours", // Fri 08:30 EST
    "2026-03-09T13:00:00Z, business-hours", // Mon 09:00 EDT
    "2026-03-09T12:30:00Z, off-hours", // Mon 08:30 EDT (a UTC cron would have started at 14:00Z)
    "2026-03-09T21:00:00Z, off-hours", // Mon 17:00 EDT
    "2026-03-09T20:59:00Z, business-hours",
    "2026-10-30T13:00:00Z, business-hours", // Fri 09:00 EDT
    "2026-11-02T13:30:00Z, off-hours", // Mon 08:30 EST
    "2026-11-02T14:00:00Z, business-hours", // Mon 09:00 EST
    "2026-11-02T22:00:00Z, off-hours", // Mon 17:00 EST
  })
  void shouldFollowTheNewYorkWallClockAcrossBothDstChanges(Instant at, String window) {
    assertThat(WindowClock.at(NEW_YORK, at).name()).isEqualTo(window);
  }

  static final Policy NIGHT =
      policy(
          "Europe/Berlin",
          """
            business-hours: { days: mon-fri, hours: "08:00-18:00" }
            night-batch: { days: [fri, sat], hours: "22:00-06:00" }
          """,
          "[2026-12-24, 2026-12-26]");

  @ParameterizedTest(name = "{0} -> {1} ({2})")
  @CsvSource({
    "2026-01-09T20:59:00Z, off-hours, DEFAULT", // Fri 21:59 CET
    "2026-01-09T21:00:00Z, night-batch, WINDOW", // Fri 22:00
    "2026-01-09T23:30:00Z, night-batch, WINDOW", // Sat 00:30: Friday's window
    "2026-01-10T04:59:00Z, night-batch, WINDOW", // Sat 05:59
    "2026-01-10T05:00:00Z, off-hours, DEFAULT", // Sat 06:00
    "2026-01-10T21:00:00Z, night-batch, WINDOW", // Sat 22:00
    "2026-01-11T02:00:00Z, night-batch, WINDOW", // Sun 03:00: Saturday's window
    "2026-01-11T05:00:00Z, off-hours, DEFAULT", // Sun 06:00
    "2026-01-11T23:00:00Z, off-hours, DEFAULT", // Mon 00:00: Sunday starts no window
    "2026-01-08T22:00:00Z, off-hours, DEFAULT", // Thu 23:00
    // holidays: Thursday 2026-12-24 business hours do not happen
    "2026-12-24T09:00:00Z, off-hours, HOLIDAY",
    "2026-12-23T09:00:00Z, business-hours, WINDOW",
    // Friday 2026-12-25 is no holiday: its night window runs, into Saturday 2026-12-26 (a holiday)
    "2026-12-25T21:30:00Z, night-batch, WINDOW",
    "2026-12-26T01:00:00Z, off-hours, HOLIDAY",
    // Saturday 2026-12-26 is a holiday: its night window does not run, not even after midnight
    "2026-12-26T21:30:00Z, off-hours, HOLIDAY",
    "2026-12-27T01:00:00Z, off-hours, DEFAULT",
  })
  void shouldHandleWindowsCrossingMidnightAndHolidays(Instant at, String window, Why why) {
    var active = WindowClock.at(NIGHT, at);
    assertThat(active.name()).isEqualTo(window);
    assertThat(active.why()).isEqualTo(why);
  }
}

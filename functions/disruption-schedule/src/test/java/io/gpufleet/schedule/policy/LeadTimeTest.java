package io.gpufleet.schedule.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.schedule.policy.WindowClock.Why;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A window's lead time puts it in force that much elapsed time before each start, on a virtual
 * clock (instants in UTC, so each row states its side of a DST change).
 */
class LeadTimeTest {
  /** Europe/Berlin: CET (+01:00) until 2026-03-29 01:00Z, CEST (+02:00) until 2026-10-25 01:00Z. */
  static final Policy BERLIN =
      WindowClockTest.policy(
          "Europe/Berlin",
          """
            business-hours: { days: mon-fri, hours: "08:00-19:00", leadTime: 10m }
            early-sunday: { days: [sun], hours: "03:30-05:00", leadTime: 45m }
          """,
          "[2026-12-24]");

  @ParameterizedTest(name = "{0} -> {1} ({2})")
  @CsvSource({
    // Friday in winter: 08:00 local is 07:00Z, the lead starts 06:50Z
    "2026-03-27T06:49:59Z, off-hours, DEFAULT",
    "2026-03-27T06:50:00Z, business-hours, LEAD",
    "2026-03-27T06:59:59Z, business-hours, LEAD",
    "2026-03-27T07:00:00Z, business-hours, WINDOW",
    // the evening end is not moved
    "2026-03-27T18:00:00Z, off-hours, DEFAULT",
    // Monday after the spring change: 08:00 local is 06:00Z, the lead starts 05:50Z
    "2026-03-30T05:49:00Z, off-hours, DEFAULT",
    "2026-03-30T05:50:00Z, business-hours, LEAD",
    // Sunday of the spring change: 03:30 CEST is 01:30Z; 45 minutes earlier is 00:45Z, i.e.
    // 01:45 CET — across the skipped hour the lead stays 45 real minutes, not 45 wall minutes
    "2026-03-29T00:44:00Z, off-hours, DEFAULT",
    "2026-03-29T00:45:00Z, early-sunday, LEAD",
    "2026-03-29T01:30:00Z, early-sunday, WINDOW",
    // Sunday of the autumn change: 03:30 CET is 02:30Z; the lead starts 01:45Z (02:45 CET, the
    // second pass of the repeated hour)
    "2026-10-25T01:44:00Z, off-hours, DEFAULT",
    "2026-10-25T01:45:00Z, early-sunday, LEAD",
    // a holiday cancels the window, and with it the lead: Thursday 24 December, 08:00 CET = 07:00Z
    "2026-12-24T06:55:00Z, off-hours, HOLIDAY",
    // Friday 25 December is no holiday in this policy: its lead starts on time
    "2026-12-25T06:55:00Z, business-hours, LEAD",
    // Monday lead after a weekend
    "2026-12-28T06:51:00Z, business-hours, LEAD",
  })
  void shouldPutTheWindowInForceItsLeadTimeBeforeItStarts(String at, String window, Why why) {
    var active = WindowClock.at(BERLIN, Instant.parse(at));

    assertThat(active.name()).isEqualTo(window);
    assertThat(active.why()).isEqualTo(why);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          negative                | -10m  | windows.business-hours.leadTime: '-10m' is negative
          not a duration          | soon  | windows.business-hours.leadTime: 'soon' is not a duration like 30s, 15m, 1h30m
          as long as off-hours    | 13h   | windows.business-hours.leadTime: 13h is not shorter than the off-hours before the window (13h before Tuesday 08:00)
          longer than off-hours   | 20h   | windows.business-hours.leadTime: 20h is not shorter than the off-hours before the window (13h before Tuesday 08:00)
          """)
  void shouldRejectALeadTimeThatIsNegativeOrNotShorterThanTheOffHours(
      String name, String lead, String expected) {
    String text =
        """
        timeZone: Europe/Berlin
        defaultWindow: off-hours
        windows:
          business-hours: { days: mon-fri, hours: "08:00-19:00", leadTime: %s }
        """
            .formatted(lead);

    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining(expected.strip());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"0s, 0", "10m, 600", "12h59m, 46740"})
  void shouldAcceptALeadTimeShorterThanTheOffHours(String lead, long seconds) {
    var p =
        PolicyParser.parse(
            """
            timeZone: Europe/Berlin
            defaultWindow: off-hours
            windows:
              business-hours: { days: mon-fri, hours: "08:00-19:00", leadTime: %s }
            """
                .formatted(lead),
            "p.yaml");

    assertThat(p.windows().get(0).leadTime()).isEqualTo(Duration.ofSeconds(seconds));
  }

  @org.junit.jupiter.api.Test
  void shouldMeasureTheGapToAnAdjacentWindowNotJustToItsOwnPreviousOccurrence() {
    String text =
        """
        timeZone: UTC
        defaultWindow: off-hours
        windows:
          night: { days: mon-sun, hours: "22:00-06:00" }
          business-hours: { days: mon-fri, hours: "08:00-19:00", leadTime: 2h }
        """;

    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining(
            "windows.business-hours.leadTime: 2h is not shorter than the off-hours before the"
                + " window (2h before Monday 08:00)");
  }
}

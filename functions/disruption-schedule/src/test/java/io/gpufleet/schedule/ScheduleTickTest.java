package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScheduleTickTest {
  static final String ARN = "arn:aws:scheduler:us-east-1:123456789012:schedule/default/s";

  static String tick(String arn, String time, String attempt) {
    return "{\"id\":\"x\",\"detail-type\":\"GPU Fleet Schedule Tick\",\"source\":\"gpufleet.scheduler\","
        + "\"detail\":{\"scheduleArn\":\""
        + arn
        + "\",\"scheduledTime\":\""
        + time
        + "\",\"attemptNumber\":\""
        + attempt
        + "\"}}";
  }

  static ScheduleTick.Decoded decode(String s) {
    return ScheduleTick.decode(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void shouldDecodeATickAndKeyItOnArnAndScheduledTime() {
    var d = decode(tick(ARN, "2026-03-30T08:00:00Z", "2"));
    assertThat(d).isInstanceOf(ScheduleTick.Ok.class);
    var t = ((ScheduleTick.Ok) d).tick();
    assertThat(t.scheduledTime()).isEqualTo(Instant.parse("2026-03-30T08:00:00Z"));
    assertThat(t.attempt()).isEqualTo(2);
    assertThat(t.key()).isEqualTo(ARN + "@2026-03-30T08:00:00Z");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          arn:aws:lambda:us-east-1:1:function:f | 2026-03-30T08:00:00Z | 1 | is not an EventBridge Scheduler ARN
          %s                                    | <aws.scheduler.scheduled-time> | 1 | is not an RFC 3339 time
          %s                                    | 2026-03-30T08:00:00Z | one | 'one' is not a number
          """)
  void shouldRejectABadTickPrecisely(String arn, String time, String attempt, String expected) {
    var d = decode(tick(arn.replace("%s", ARN), time, attempt));
    assertThat(d)
        .isInstanceOfSatisfying(
            ScheduleTick.Rejected.class, r -> assertThat(r.reason()).contains(expected));
  }

  @Test
  void shouldRejectEmptyAndNonJsonPayloads() {
    assertThat(ScheduleTick.decode(new byte[0])).isInstanceOf(ScheduleTick.Rejected.class);
    assertThat(decode("not json"))
        .isInstanceOfSatisfying(
            ScheduleTick.Rejected.class, r -> assertThat(r.reason()).startsWith("not JSON"));
  }

  @Test
  void shouldAdmitATickOnceAndRefuseOlderOnes() {
    var dedupe = new TickDeduper(2);
    var t1 = new ScheduleTick("a", ARN, Instant.parse("2026-03-30T08:00:00Z"), 1, false);
    var t2 = new ScheduleTick("b", ARN, Instant.parse("2026-03-30T08:15:00Z"), 1, false);

    assertThat(dedupe.admit(t1)).isEqualTo(TickDeduper.Verdict.NEW);
    assertThat(dedupe.admit(t1)).isEqualTo(TickDeduper.Verdict.DUPLICATE);
    assertThat(dedupe.admit(t2)).isEqualTo(TickDeduper.Verdict.NEW);
    dedupe.forget(t2);
    assertThat(dedupe.admit(t2))
        .as("a failed tick's retry runs again")
        .isEqualTo(TickDeduper.Verdict.NEW);
    var other = new ScheduleTick("c", ARN + "-2", Instant.parse("2026-03-30T07:00:00Z"), 1, false);
    assertThat(dedupe.admit(other)).as("another schedule").isEqualTo(TickDeduper.Verdict.NEW);
    assertThat(
            dedupe.admit(
                new ScheduleTick("d", ARN, Instant.parse("2026-03-30T07:45:00Z"), 1, false)))
        .isEqualTo(TickDeduper.Verdict.SUPERSEDED);
  }
}

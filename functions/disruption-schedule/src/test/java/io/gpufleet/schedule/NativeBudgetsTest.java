package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.gpufleet.schedule.NativeBudgets.NativeBudget;
import io.gpufleet.schedule.policy.Policy;
import io.gpufleet.schedule.policy.PolicyParser;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class NativeBudgetsTest {
  static final Policy POLICY =
      PolicyParser.parse(
          """
          timeZone: Europe/Berlin
          defaultWindow: off-hours
          windows:
            business-hours: { days: mon-fri, hours: "08:00-19:00" }
            weekend-night: { days: [sat, sun], hours: "22:00-02:00" }
            tuesday-early: { days: [tue], hours: "00:30-06:00" }
          nodePools:
            - name: gpu
              selector: { names: [gpu-a100] }
              windows:
                off-hours: { budgets: [{ nodes: "50%" }] }
                business-hours: { budgets: [{ nodes: "10%", reasons: [Underutilized] }], consolidateAfter: 1h }
                weekend-night: { budgets: [{ nodes: "100%" }] }
                tuesday-early: { budgets: [{ nodes: "0" }] }
          """,
          "test");

  static final Instant WINTER = Instant.parse("2026-01-15T12:00:00Z");
  static final Instant SUMMER = Instant.parse("2026-07-01T12:00:00Z");

  NativeBudget budget(NativeBudgets.Result r, String window) {
    return r.rules().get(0).budgets().stream()
        .filter(b -> b.comment().startsWith(window))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void shouldRenderBusinessHoursAsUtcCronForTheOffsetInForce() {
    var winter = NativeBudgets.render(POLICY, WINTER);
    var summer = NativeBudgets.render(POLICY, SUMMER);

    assertThat(budget(winter, "business-hours").schedule())
        .isEqualTo("0 7 * * mon,tue,wed,thu,fri");
    assertThat(budget(summer, "business-hours").schedule())
        .isEqualTo("0 6 * * mon,tue,wed,thu,fri");
    assertThat(budget(winter, "business-hours").duration()).isEqualTo("11h");
    assertThat(budget(winter, "business-hours").reasons()).containsExactly("Underutilized");
    assertThat(budget(winter, "off-hours").schedule()).isNull();
    assertThat(budget(winter, "off-hours").duration()).isNull();
  }

  @Test
  void shouldUseSundayFirstDayListsAndShiftDaysWhenUtcCrossesMidnight() {
    var summer = NativeBudgets.render(POLICY, SUMMER);

    assertThat(budget(summer, "weekend-night").schedule()).isEqualTo("0 20 * * sun,sat");
    assertThat(budget(summer, "weekend-night").duration()).isEqualTo("4h");
    // Tuesday 00:30 CEST is Monday 22:30 UTC
    assertThat(budget(summer, "tuesday-early").schedule()).isEqualTo("30 22 * * mon");
    assertThat(budget(summer, "tuesday-early").duration()).isEqualTo("5h30m");
  }

  @Test
  void shouldEmitCronsThatKarpentersDialectRunsAtTheWindowStart() {
    var winter = NativeBudgets.render(POLICY, WINTER);
    var parser = new CronParser(NativeBudgets.KARPENTER);
    var cron = parser.parse(budget(winter, "business-hours").schedule());

    // Karpenter evaluates in UTC: from Friday 2026-01-16 00:00Z the next start is 07:00Z = 08:00
    // CET
    var next =
        ExecutionTime.forCron(cron)
            .nextExecution(ZonedDateTime.of(2026, 1, 16, 0, 0, 0, 0, ZoneOffset.UTC))
            .orElseThrow();
    assertThat(next.toInstant()).isEqualTo(Instant.parse("2026-01-16T07:00:00Z"));
    // and skips the weekend
    var afterFriday = ExecutionTime.forCron(cron).nextExecution(next).orElseThrow();
    assertThat(afterFriday.toInstant()).isEqualTo(Instant.parse("2026-01-19T07:00:00Z"));
  }

  @Test
  void shouldListTheDstChangesThatShiftTheSchedules() {
    var winter = NativeBudgets.render(POLICY, WINTER);

    assertThat(winter.dstShifts())
        .extracting(NativeBudgets.Shift::at)
        .containsExactly(
            Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-10-25T01:00:00Z"));
    String text = NativeBudgets.toText(winter);
    assertThat(text)
        .contains("2026-03-29")
        .contains("2026-10-25")
        .contains("schedule: \"0 7 * * mon,tue,wed,thu,fri\"")
        .contains("duration: 11h")
        .contains("the windows would start 60 minutes late");
  }

  @Test
  void shouldWarnWhatNativeBudgetsCannotExpress() {
    var r = NativeBudgets.render(POLICY, WINTER).rules().get(0);

    assertThat(r.warnings())
        .anySatisfy(
            w -> assertThat(w).contains("'weekend-night' allows 100%").contains("only restrict"))
        .anySatisfy(w -> assertThat(w).contains("consolidateAfter 1h"));
  }

  @Test
  void shouldSayWhenTheZoneHasNoDst() {
    Policy utc =
        PolicyParser.parse(
            """
                timeZone: Asia/Tokyo
                defaultWindow: off-hours
                windows: { business-hours: { days: mon-fri, hours: "09:00-18:00" } }
                nodePools: [{ name: p, selector: { names: [p] }, windows: { business-hours: { budgets: [{ nodes: "1" }] } } }]
                """,
            "tokyo");
    var r = NativeBudgets.render(utc, WINTER);
    assertThat(r.dstShifts()).isEmpty();
    // 09:00 JST is 00:00 UTC the same day
    assertThat(r.rules().get(0).budgets().get(0).schedule())
        .isEqualTo("0 0 * * mon,tue,wed,thu,fri");
    assertThat(NativeBudgets.toText(r)).contains("No DST change");
  }

  @Test
  void shouldOfferEventBridgeCronsAtTheWindowEdgesInTheirOwnDialect() {
    var r = NativeBudgets.render(POLICY, WINTER);

    assertThat(r.transitions())
        .extracting(
            NativeBudgets.Transition::window,
            NativeBudgets.Transition::edge,
            NativeBudgets.Transition::expression)
        .contains(
            org.assertj.core.groups.Tuple.tuple(
                "business-hours", "start", "cron(0 8 ? * MON,TUE,WED,THU,FRI *)"),
            org.assertj.core.groups.Tuple.tuple(
                "business-hours", "end", "cron(0 19 ? * MON,TUE,WED,THU,FRI *)"),
            // Saturday and Sunday 22:00-02:00 end on Sunday and Monday
            org.assertj.core.groups.Tuple.tuple("weekend-night", "end", "cron(0 2 ? * SUN,MON *)"));
    // the dialect: Sunday = 1, day-of-month '?' when day-of-week is given
    var parser = new CronParser(NativeBudgets.EVENTBRIDGE);
    var sunday = parser.parse("0 2 ? * 1 *");
    var next =
        ExecutionTime.forCron(sunday)
            .nextExecution(ZonedDateTime.of(2026, 1, 14, 0, 0, 0, 0, ZoneOffset.UTC))
            .orElseThrow();
    assertThat(next.getDayOfWeek()).isEqualTo(java.time.DayOfWeek.SUNDAY);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> parser.parse("0 2 * * MON *").validate())
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(NativeBudgets.toText(r)).contains("ScheduleExpressionTimezone Europe/Berlin");
  }

  static final Policy LEAD_AND_HOLIDAYS =
      PolicyParser.parse(
          """
          timeZone: Europe/Berlin
          defaultWindow: off-hours
          windows:
            business-hours: { days: mon-fri, hours: "08:00-19:00", leadTime: 10m }
          holidays: [2026-12-24, 2026-12-26]
          nodePools:
            - name: gpu
              selector: { names: [gpu-a100] }
              windows:
                off-hours: { budgets: [{ nodes: "50%" }] }
                business-hours: { budgets: [{ nodes: "10%" }] }
          """,
          "test");

  @Test
  void shouldStartTheWindowBudgetItsLeadTimeEarlierAndLengthenIt() {
    var winter = NativeBudgets.render(LEAD_AND_HOLIDAYS, WINTER);

    var b = budget(winter, "business-hours");
    // 07:50 CET is 06:50 UTC; 08:00-19:00 plus 10 minutes
    assertThat(b.schedule()).isEqualTo("50 6 * * mon,tue,wed,thu,fri");
    assertThat(b.duration()).isEqualTo("11h10m");
    assertThat(b.comment()).endsWith("from 07:50 (lead time 10m)");
    assertThat(winter.transitions())
        .contains(
            new NativeBudgets.Transition(
                "business-hours", "start (lead time 10m)", "cron(50 7 ? * MON,TUE,WED,THU,FRI *)"));
  }

  @Test
  void shouldWarnWhichHolidaysNativeBudgetsCannotExpress() {
    var r = NativeBudgets.render(LEAD_AND_HOLIDAYS, WINTER);

    // 2026-12-26 is a Saturday: business-hours does not run then, so it is not named
    assertThat(r.rules().get(0).warnings())
        .containsExactly(
            "the policy's holidays 2026-12-24 (thu) fall on window 'business-hours'"
                + " (mon,tue,wed,thu,fri): native budgets have no dates, so on those days"
                + " Karpenter applies the 'business-hours' budgets instead of 'off-hours'; only"
                + " the reconciling function honours holidays (or remove these budgets by hand"
                + " for those days)");
    assertThat(NativeBudgets.toText(r)).contains("# WARNING: the policy's holidays 2026-12-24");
  }

  @Test
  void shouldNotWarnAboutHolidaysWhenThePolicyHasNone() {
    assertThat(NativeBudgets.render(POLICY, WINTER).rules().get(0).warnings())
        .noneMatch(w -> w.contains("holidays"));
  }

  @Test
  void shouldCrossMidnightBackwardsWhenTheLeadStartsTheDayBefore() {
    var p =
        PolicyParser.parse(
            """
            timeZone: UTC
            defaultWindow: off-hours
            windows:
              early: { days: [mon], hours: "00:05-06:00", leadTime: 15m }
            nodePools:
              - name: gpu
                selector: { names: [a] }
                windows:
                  early: { budgets: [{ nodes: "0" }] }
            """,
            "test");

    var r = NativeBudgets.render(p, WINTER);

    assertThat(budget(r, "early").schedule()).isEqualTo("50 23 * * sun");
    assertThat(budget(r, "early").duration()).isEqualTo("6h10m");
    assertThat(r.transitions().get(0).expression()).isEqualTo("cron(50 23 ? * SUN *)");
  }
}

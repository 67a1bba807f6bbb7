package io.gpufleet.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.parser.CronParser;
import io.gpufleet.schedule.policy.Policy;
import io.gpufleet.schedule.policy.Policy.Budget;
import io.gpufleet.schedule.policy.Policy.NodePoolRule;
import io.gpufleet.schedule.policy.Policy.NodePoolSetting;
import io.gpufleet.schedule.policy.Policy.Window;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The static fallback: a policy's NodePool rules as native Karpenter {@code disruption.budgets}
 * (UTC cron + duration). Karpenter schedules are UTC-only and budgets only restrict, so: the
 * default window's budgets become unscheduled (always-active) budgets, each named window's budgets
 * get the window's start as a UTC cron and its length as duration, valid for the UTC offset in
 * force at the render instant; the DST transitions after it are listed, since each shifts the
 * windows by the offset change until the budgets are rendered again.
 */
public final class NativeBudgets {
  /** Karpenter's dialect: 5 fields, day-of-week 0-6 with Sunday = 0, names allowed. */
  public static final CronDefinition KARPENTER =
      CronDefinitionBuilder.defineCron()
          .withMinutes()
          .withValidRange(0, 59)
          .and()
          .withHours()
          .withValidRange(0, 23)
          .and()
          .withDayOfMonth()
          .withValidRange(1, 31)
          .and()
          .withMonth()
          .withValidRange(1, 12)
          .and()
          .withDayOfWeek()
          .withValidRange(0, 6)
          .withMondayDoWValue(1)
          .and()
          .instance();

  private static final CronParser PARSER = new CronParser(KARPENTER);

  /**
   * EventBridge Scheduler's dialect: 6 fields with a year, day-of-week 1-7 with Sunday = 1 (or
   * SUN-SAT), exactly one of day-of-month / day-of-week given, the other '?'.
   */
  public static final CronDefinition EVENTBRIDGE =
      CronDefinitionBuilder.defineCron()
          .withMinutes()
          .withValidRange(0, 59)
          .and()
          .withHours()
          .withValidRange(0, 23)
          .and()
          .withDayOfMonth()
          .withValidRange(1, 31)
          .supportsL()
          .supportsW()
          .supportsQuestionMark()
          .and()
          .withMonth()
          .withValidRange(1, 12)
          .and()
          .withDayOfWeek()
          .withValidRange(1, 7)
          .withMondayDoWValue(2)
          .supportsHash()
          .supportsL()
          .supportsQuestionMark()
          .and()
          .withYear()
          .withValidRange(1970, 2199)
          .and()
          .withCronValidation(
              com.cronutils.model.definition.CronConstraintsFactory
                  .ensureEitherDayOfWeekOrDayOfMonth())
          .instance();

  private static final CronParser EVENTBRIDGE_PARSER = new CronParser(EVENTBRIDGE);

  /**
   * One window boundary as an EventBridge Scheduler cron in the policy's own zone (with {@code
   * ScheduleExpressionTimezone}, DST-correct): schedules firing exactly at the boundaries, for
   * those who want the reconcile at the edges rather than every 15 minutes.
   */
  public record Transition(String window, String edge, String expression) {}

  /** One native budget; {@code schedule}/{@code duration} null for an always-active budget. */
  public record NativeBudget(
      String nodes, List<String> reasons, String schedule, String duration, String comment) {}

  public record Rendered(
      String rule,
      String selector,
      ZoneOffset offset,
      List<NativeBudget> budgets,
      List<String> warnings) {}

  public record Shift(Instant at, ZoneOffset before, ZoneOffset after) {}

  public record Result(
      Policy policy,
      Instant at,
      List<Rendered> rules,
      List<Shift> dstShifts,
      List<Transition> transitions) {}

  private NativeBudgets() {}

  public static Result render(Policy policy, Instant at) {
    ZoneOffset offset = policy.zone().getRules().getOffset(at);
    var rules = new ArrayList<Rendered>();
    for (NodePoolRule rule : policy.nodePools()) {
      var budgets = new ArrayList<NativeBudget>();
      var warnings = new ArrayList<String>();
      NodePoolSetting def = rule.windows().get(policy.defaultWindow());
      if (def != null) {
        for (Budget b : def.budgets()) {
          budgets.add(
              new NativeBudget(
                  b.nodes(), b.reasons(), null, null, policy.defaultWindow() + " (always active)"));
        }
      } else {
        warnings.add(
            "no budgets for the default window '"
                + policy.defaultWindow()
                + "': outside the windows below the NodePool's Karpenter default (nodes: 10%) applies");
      }
      for (Window w : policy.windows()) {
        NodePoolSetting s = rule.windows().get(w.name());
        if (s == null) {
          continue;
        }
        int lead = leadMinutes(w);
        String schedule = cron(w, offset);
        int minutes = w.lengthMinutes() + lead;
        String duration = duration(Duration.ofMinutes(minutes));
        for (Budget b : s.budgets()) {
          budgets.add(
              new NativeBudget(
                  b.nodes(),
                  b.reasons(),
                  schedule,
                  duration,
                  w.name()
                      + " "
                      + days(w.days())
                      + " "
                      + w.hours()
                      + " "
                      + policy.zone().getId()
                      + (lead > 0
                          ? ", from "
                              + Window.hhmm(Math.floorMod(w.startMinute() - lead, 1440))
                              + " (lead time "
                              + io.gpufleet.schedule.policy.PolicyParser.durationText(w.leadTime())
                              + ")"
                          : "")));
          if (def != null) {
            for (Budget d : def.budgets()) {
              if (looser(b.nodes(), d.nodes())) {
                warnings.add(
                    "window '"
                        + w.name()
                        + "' allows "
                        + b.nodes()
                        + " but the always-active "
                        + d.nodes()
                        + " is stricter: Karpenter budgets only restrict, so the looser window budget"
                        + " has no effect; use the reconciling function for this rule");
              }
            }
          }
        }
        var onHolidays = new ArrayList<String>();
        for (java.time.LocalDate h : new java.util.TreeSet<>(policy.holidays())) {
          if (w.days().contains(h.getDayOfWeek())) {
            onHolidays.add(
                h + " (" + h.getDayOfWeek().name().substring(0, 3).toLowerCase(Locale.ROOT) + ")");
          }
        }
        if (!onHolidays.isEmpty() && !s.budgets().isEmpty()) {
          warnings.add(
              "the policy's holidays "
                  + String.join(", ", onHolidays)
                  + " fall on window '"
                  + w.name()
                  + "' ("
                  + days(w.days())
                  + "): native budgets have no dates, so on those days Karpenter applies the '"
                  + w.name()
                  + "' budgets instead of '"
                  + policy.defaultWindow()
                  + "'; only the reconciling function honours holidays (or remove these budgets"
                  + " by hand for those days)");
        }
        if (s.consolidateAfter() != null) {
          warnings.add(
              "window '"
                  + w.name()
                  + "' sets consolidateAfter "
                  + s.consolidateAfter()
                  + ": Karpenter has no schedule for it (only the reconciling function can switch it)");
        }
      }
      if (budgets.size() > 50) {
        warnings.add("renders " + budgets.size() + " budgets; Karpenter allows at most 50");
      }
      String selector =
          (rule.selector().names().isEmpty() ? "" : "names " + rule.selector().names())
              + (rule.selector().labels().isEmpty() ? "" : " labels " + rule.selector().labels());
      rules.add(
          new Rendered(
              rule.name(), selector.trim(), offset, List.copyOf(budgets), List.copyOf(warnings)));
    }
    return new Result(policy, at, List.copyOf(rules), shifts(policy, at), transitions(policy));
  }

  /** The lead time in whole minutes, rounded up (cron has no seconds). */
  static int leadMinutes(Window w) {
    long seconds = w.leadTime().toSeconds();
    return (int) ((seconds + 59) / 60);
  }

  /**
   * The window's local start (less its lead time) on its local days, moved to UTC at {@code
   * offset}.
   */
  static String cron(Window w, ZoneOffset offset) {
    int utc = w.startMinute() - leadMinutes(w) - offset.getTotalSeconds() / 60;
    int dayShift = Math.floorDiv(utc, 1440);
    int minuteOfDay = Math.floorMod(utc, 1440);
    var days = EnumSet.noneOf(DayOfWeek.class);
    w.days().forEach(d -> days.add(d.plus(dayShift)));
    String expr =
        (minuteOfDay % 60)
            + " "
            + (minuteOfDay / 60)
            + " * * "
            + (days.size() == 7 ? "*" : days(days));
    Cron parsed = PARSER.parse(expr);
    parsed.validate();
    return expr;
  }

  /** Start and end of every window as EventBridge Scheduler crons in local time. */
  static List<Transition> transitions(Policy policy) {
    var out = new ArrayList<Transition>();
    for (Window w : policy.windows()) {
      int lead = leadMinutes(w);
      int start = w.startMinute() - lead;
      var startDays = EnumSet.noneOf(DayOfWeek.class);
      w.days().forEach(d -> startDays.add(start < 0 ? d.minus(1) : d));
      out.add(
          new Transition(
              w.name(),
              lead > 0
                  ? "start (lead time "
                      + io.gpufleet.schedule.policy.PolicyParser.durationText(w.leadTime())
                      + ")"
                  : "start",
              eventBridgeCron(Math.floorMod(start, 1440), startDays)));
      int end = w.endMinute() % 1440;
      var endDays = EnumSet.noneOf(DayOfWeek.class);
      boolean nextDay = w.crossesMidnight() || w.endMinute() == 1440;
      w.days().forEach(d -> endDays.add(nextDay ? d.plus(1) : d));
      out.add(new Transition(w.name(), "end", eventBridgeCron(end, endDays)));
    }
    return out;
  }

  static String eventBridgeCron(int minuteOfDay, Set<DayOfWeek> days) {
    String dow =
        days.size() == 7
            ? "*"
            : days.stream()
                .sorted((a, b) -> Integer.compare(a.getValue() % 7, b.getValue() % 7))
                .map(d -> d.name().substring(0, 3))
                .collect(Collectors.joining(","));
    String expr = (minuteOfDay % 60) + " " + (minuteOfDay / 60) + " ? * " + dow + " *";
    EVENTBRIDGE_PARSER.parse(expr).validate();
    return "cron(" + expr + ")";
  }

  /** Karpenter-style day list, Sunday first: "sun,sat", "mon,tue,wed,thu,fri". */
  static String days(Set<DayOfWeek> days) {
    return days.stream()
        .sorted((a, b) -> Integer.compare(a.getValue() % 7, b.getValue() % 7))
        .map(d -> d.name().substring(0, 3).toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(","));
  }

  static String duration(Duration d) {
    long h = d.toHours();
    long m = d.toMinutesPart();
    return (h > 0 ? h + "h" : "") + (m > 0 || h == 0 ? m + "m" : "");
  }

  /** The offset changes of the zone in the year after {@code at}. */
  static List<Shift> shifts(Policy policy, Instant at) {
    var out = new ArrayList<Shift>();
    Instant end = at.plus(Duration.ofDays(366));
    ZoneOffsetTransition t = policy.zone().getRules().nextTransition(at);
    while (t != null && t.getInstant().isBefore(end)) {
      out.add(new Shift(t.getInstant(), t.getOffsetBefore(), t.getOffsetAfter()));
      t = policy.zone().getRules().nextTransition(t.getInstant());
    }
    return out;
  }

  /** True when {@code a} allows more disruption than {@code b} (same unit only). */
  static boolean looser(String a, String b) {
    boolean pa = a.endsWith("%");
    boolean pb = b.endsWith("%");
    if (pa != pb) {
      return false;
    }
    return Long.parseLong(a.replace("%", "")) > Long.parseLong(b.replace("%", ""));
  }

  /** The rendering as YAML snippets with comments, for {@code gpufleet budgets render}. */
  public static String toText(Result r) {
    var sb = new StringBuilder();
    sb.append("# Native Karpenter disruption budgets for time zone ")
        .append(r.policy().zone().getId())
        .append(", rendered at ")
        .append(r.at())
        .append('\n');
    for (Rendered rule : r.rules()) {
      sb.append("\n# NodePool rule '")
          .append(rule.rule())
          .append("' (")
          .append(rule.selector())
          .append("), UTC offset ")
          .append(rule.offset())
          .append('\n');
      sb.append("spec:\n  disruption:\n    budgets:\n");
      for (NativeBudget b : rule.budgets()) {
        sb.append("      - nodes: \"").append(b.nodes()).append("\"");
        sb.append("    # ").append(b.comment()).append('\n');
        if (!b.reasons().isEmpty()) {
          sb.append("        reasons: [").append(String.join(", ", b.reasons())).append("]\n");
        }
        if (b.schedule() != null) {
          sb.append("        schedule: \"").append(b.schedule()).append("\"\n");
          sb.append("        duration: ").append(b.duration()).append('\n');
        }
      }
      for (String w : rule.warnings()) {
        sb.append("# WARNING: ").append(w).append('\n');
      }
    }
    if (!r.transitions().isEmpty()) {
      sb.append(
              "\n# Optional: EventBridge Scheduler ticks exactly at the window edges (ScheduleExpressionTimezone ")
          .append(r.policy().zone().getId())
          .append(", DST-correct), in addition to or instead of rate(15 minutes):\n");
      for (Transition t : r.transitions()) {
        sb.append("#   ")
            .append(t.window())
            .append(' ')
            .append(t.edge())
            .append(": ")
            .append(t.expression())
            .append('\n');
      }
    }
    sb.append('\n');
    if (r.dstShifts().isEmpty()) {
      sb.append("# No DST change in ")
          .append(r.policy().zone().getId())
          .append(" in the next 12 months.\n");
    } else {
      sb.append("# DST will shift these UTC schedules; render again after each of:\n");
      for (Shift s : r.dstShifts()) {
        long minutes = (s.after().getTotalSeconds() - s.before().getTotalSeconds()) / 60;
        sb.append("#   ")
            .append(s.at().atOffset(s.after()).toLocalDate())
            .append("  ")
            .append(s.at())
            .append("  UTC")
            .append(s.before())
            .append(" -> UTC")
            .append(s.after())
            .append(": the windows would start ")
            .append(Math.abs(minutes))
            .append(" minutes ")
            .append(minutes > 0 ? "late" : "early")
            .append(" in local time\n");
      }
    }
    return sb.toString();
  }
}

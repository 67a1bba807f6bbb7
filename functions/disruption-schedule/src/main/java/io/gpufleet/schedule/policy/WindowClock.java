package io.gpufleet.schedule.policy;

import io.gpufleet.schedule.policy.Policy.Window;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;

/**
 * Which window is in force at an instant: evaluated on the wall clock of the policy's zone, so a
 * window "08:00-19:00" starts at 08:00 local on both sides of a DST change (a UTC schedule would
 * drift by an hour). A start time that does not exist on a spring-forward day begins the window at
 * the first local minute after it; on a fall-back day the repeated hour counts on both passes.
 */
public final class WindowClock {
  private WindowClock() {}

  public enum Why {
    WINDOW,
    DEFAULT,
    HOLIDAY,
    /** Within a window's lead time: its settings apply ahead of its start. */
    LEAD
  }

  /** The window in force and why; {@code localTime} is the wall-clock time it was judged at. */
  public record Active(String name, Why why, ZonedDateTime localTime) {}

  public static Active at(Policy policy, Instant instant) {
    return at(policy, instant.atZone(policy.zone()));
  }

  public static Active at(Policy policy, ZonedDateTime when) {
    Active plain = plain(policy, when);
    if (plain.why() == Why.WINDOW) {
      return plain;
    }
    for (Window w : policy.windows()) {
      if (w.leadTime().isZero()) {
        continue;
      }
      Active ahead = plain(policy, when.plus(w.leadTime()));
      if (ahead.why() == Why.WINDOW && ahead.name().equals(w.name())) {
        return new Active(w.name(), Why.LEAD, plain.localTime());
      }
    }
    return plain;
  }

  /** The window whose own hours contain the instant, ignoring lead times. */
  private static Active plain(Policy policy, ZonedDateTime when) {
    ZonedDateTime local = when.withZoneSameInstant(policy.zone());
    LocalDate date = local.toLocalDate();
    if (policy.holidays().contains(date)) {
      return new Active(policy.defaultWindow(), Why.HOLIDAY, local);
    }
    int minute = local.getHour() * 60 + local.getMinute();
    for (Window w : policy.windows()) {
      if (contains(w, date, minute, policy)) {
        return new Active(w.name(), Why.WINDOW, local);
      }
    }
    return new Active(policy.defaultWindow(), Why.DEFAULT, local);
  }

  private static boolean contains(Window w, LocalDate date, int minute, Policy policy) {
    if (!w.crossesMidnight()) {
      return w.days().contains(date.getDayOfWeek())
          && minute >= w.startMinute()
          && minute < w.endMinute();
    }
    if (w.days().contains(date.getDayOfWeek()) && minute >= w.startMinute()) {
      return true;
    }
    // the part after midnight belongs to the previous day's occurrence, which a holiday cancels
    LocalDate started = date.minusDays(1);
    return w.days().contains(started.getDayOfWeek())
        && minute < w.endMinute()
        && !policy.holidays().contains(started);
  }
}

package io.gpufleet.schedule.policy;

import io.gpufleet.schedule.policy.Policy.Window;
import java.time.DayOfWeek;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * How the windows fit into one week, minute by minute: no two in force at the same minute, and each
 * lead time shorter than the quiet time before the window's starts.
 */
final class WindowChecks {
  private static final int WEEK = 7 * 1440;

  private final Problems problems;

  WindowChecks(Problems problems) {
    this.problems = problems;
  }

  /** Two windows may not be in force at the same minute of the week. */
  void overlaps(List<Window> windows) {
    int[] owner = new int[WEEK];
    java.util.Arrays.fill(owner, -1);
    var reported = new TreeSet<String>();
    for (int i = 0; i < windows.size(); i++) {
      Window w = windows.get(i);
      for (DayOfWeek d : w.days()) {
        int base = (d.getValue() - 1) * 1440;
        int length =
            w.crossesMidnight()
                ? 1440 - w.startMinute() + w.endMinute()
                : w.endMinute() - w.startMinute();
        for (int k = 0; k < length; k++) {
          int minute = (base + w.startMinute() + k) % WEEK;
          int other = owner[minute];
          if (other >= 0 && other != i) {
            String key = other + "/" + i;
            if (reported.add(key)) {
              Window o = windows.get(other);
              DayOfWeek at = DayOfWeek.of(minute / 1440 + 1);
              problems.add(
                  "windows." + w.name(),
                  "overlaps window '"
                      + o.name()
                      + "' ("
                      + o.hours()
                      + ") on "
                      + dayName(at)
                      + " at "
                      + Window.hhmm(minute % 1440));
            }
          } else {
            owner[minute] = i;
          }
        }
      }
    }
  }

  /**
   * A window's lead time must be shorter than the time before each of its starts in which no window
   * (its own previous occurrence included) is in force; otherwise it would cut into that window or
   * never end.
   */
  void leadTimes(List<Window> windows) {
    boolean[] owned = new boolean[WEEK];
    for (Window w : windows) {
      for (DayOfWeek d : w.days()) {
        int base = (d.getValue() - 1) * 1440 + w.startMinute();
        for (int k = 0; k < w.lengthMinutes(); k++) {
          owned[(base + k) % WEEK] = true;
        }
      }
    }
    for (Window w : windows) {
      if (w.leadTime().isZero()) {
        continue;
      }
      long shortest = Long.MAX_VALUE;
      DayOfWeek shortestDay = null;
      for (DayOfWeek d : w.days()) {
        int start = (d.getValue() - 1) * 1440 + w.startMinute();
        int gap = 0;
        while (gap < WEEK && !owned[Math.floorMod(start - gap - 1, WEEK)]) {
          gap++;
        }
        if (gap < shortest) {
          shortest = gap;
          shortestDay = d;
        }
      }
      if (w.leadTime().compareTo(Duration.ofMinutes(shortest)) >= 0) {
        problems.add(
            "windows." + w.name() + ".leadTime",
            PolicyParser.durationText(w.leadTime())
                + " is not shorter than the off-hours before the window ("
                + PolicyParser.durationText(Duration.ofMinutes(shortest))
                + " before "
                + dayName(shortestDay)
                + " "
                + Window.hhmm(w.startMinute())
                + ")");
      }
    }
  }

  /** "Monday". */
  private static String dayName(DayOfWeek d) {
    return d.name().substring(0, 1) + d.name().substring(1).toLowerCase(Locale.ROOT);
  }
}

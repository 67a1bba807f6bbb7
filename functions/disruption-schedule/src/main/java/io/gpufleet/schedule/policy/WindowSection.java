package io.gpufleet.schedule.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.schedule.policy.Policy.Window;
import java.time.DayOfWeek;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code windows} section: each named window's days, hours and lead time. A window whose days
 * or hours cannot be read is left out (its problems say why); how windows relate to each other is
 * {@link WindowChecks}'.
 */
final class WindowSection {
  static final Pattern HOURS = Pattern.compile("(\\d{1,2}):(\\d{2})\\s*-\\s*(\\d{1,2}):(\\d{2})");

  private final Problems problems;

  WindowSection(Problems problems) {
    this.problems = problems;
  }

  List<Window> windows(JsonNode node) {
    var out = new ArrayList<Window>();
    if (node == null || !node.isObject()) {
      return out;
    }
    for (var it = node.fields(); it.hasNext(); ) {
      var e = it.next();
      String path = "windows." + e.getKey();
      JsonNode w = e.getValue();
      Set<DayOfWeek> days = days(w.get("days"), path + ".days");
      int[] hours = hours(PolicyFields.text(w, "hours"), path + ".hours");
      Duration lead = leadTime(PolicyFields.text(w, "leadTime"), path + ".leadTime");
      if (days != null && hours != null) {
        out.add(new Window(e.getKey(), days, hours[0], hours[1], lead));
      }
    }
    return out;
  }

  /** Days and day ranges ("mon-fri", "sat,sun", [mon, wed-fri]); the schema checked the shape. */
  private Set<DayOfWeek> days(JsonNode node, String path) {
    List<String> parts = new ArrayList<>();
    if (node == null) {
      return null;
    } else if (node.isTextual()) {
      for (String p : node.asText().split(",")) {
        parts.add(p.trim());
      }
    } else {
      node.forEach(n -> parts.add(n.asText().trim()));
    }
    var days = EnumSet.noneOf(DayOfWeek.class);
    for (String part : parts) {
      String[] range = part.split("-", -1);
      DayOfWeek from = day(range[0]);
      DayOfWeek to = range.length == 2 ? day(range[1]) : from;
      if (range.length > 2 || from == null || to == null) {
        problems.add(path, "'" + part + "' is not a day (mon, tue, wed, thu, fri, sat, sun)");
        return null;
      }
      for (DayOfWeek d = from; ; d = d.plus(1)) {
        days.add(d);
        if (d == to) {
          break;
        }
      }
    }
    return days.isEmpty() ? null : days;
  }

  static DayOfWeek day(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.length() < 3) {
      return null;
    }
    for (DayOfWeek d : DayOfWeek.values()) {
      String full = d.name().toLowerCase(Locale.ROOT);
      if (full.equals(t) || full.substring(0, 3).equals(t)) {
        return d;
      }
    }
    return null;
  }

  private int[] hours(String text, String path) {
    Matcher m = text == null ? null : HOURS.matcher(text.trim());
    if (m == null || !m.matches()) {
      return null;
    }
    int sh = Integer.parseInt(m.group(1));
    int sm = Integer.parseInt(m.group(2));
    int eh = Integer.parseInt(m.group(3));
    int em = Integer.parseInt(m.group(4));
    if (sh > 23 || sm > 59) {
      problems.add(path, "start '" + m.group(1) + ":" + m.group(2) + "' is not a valid HH:MM time");
      return null;
    }
    if ((eh > 23 || em > 59) && !(eh == 24 && em == 0)) {
      problems.add(path, "end '" + m.group(3) + ":" + m.group(4) + "' is not a valid HH:MM time");
      return null;
    }
    int start = sh * 60 + sm;
    int end = eh * 60 + em;
    if (start == end) {
      problems.add(
          path, "'" + text + "' is empty (start equals end); for a whole day use 00:00-24:00");
      return null;
    }
    return new int[] {start, end == 0 ? 1440 : end};
  }

  private Duration leadTime(String text, String path) {
    if (text == null) {
      return Duration.ZERO;
    }
    if (text.startsWith("-")) {
      problems.add(
          path, "'" + text + "' is negative; a lead time is how long before the window it starts");
      return Duration.ZERO;
    }
    return PolicyParser.parseGoDuration(text);
  }
}

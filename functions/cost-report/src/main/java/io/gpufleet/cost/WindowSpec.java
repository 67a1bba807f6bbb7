package io.gpufleet.cost;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.cost.model.ReportWindow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.regex.Pattern;

/**
 * Report windows, all in UTC:
 *
 * <ul>
 *   <li>{@code 1h}, {@code 24h}, {@code 7d}, ...: the trailing duration up to now
 *   <li>{@code last-hour}: the last complete clock hour; {@code last-day}: yesterday (00:00–24:00)
 *   <li>{@code mtd}: from the first of this month 00:00 to now
 *   <li>{@code START/END}: explicit ISO-8601 instants, e.g. {@code
 *       2026-11-01T00:00Z/2026-11-02T00:00Z}
 * </ul>
 */
public final class WindowSpec {
  private static final Pattern TRAILING = Pattern.compile("(\\d{1,4})([hd])");
  static final Duration MAX = Duration.ofDays(93);

  private WindowSpec() {}

  public static ReportWindow resolve(String spec, Clock clock) {
    if (spec == null || spec.isBlank()) {
      throw new ConfigException("report window is empty (examples: 24h, last-day, mtd)");
    }
    String s = spec.trim();
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    var m = TRAILING.matcher(s);
    ReportWindow w;
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      if (n == 0) {
        throw new ConfigException("report window '" + s + "' is empty");
      }
      Duration d = m.group(2).equals("h") ? Duration.ofHours(n) : Duration.ofDays(n);
      w = new ReportWindow(s, now.minus(d), now);
    } else {
      w =
          switch (s) {
            case "last-hour" -> {
              Instant end = now.truncatedTo(ChronoUnit.HOURS);
              yield new ReportWindow(s, end.minus(Duration.ofHours(1)), end);
            }
            case "last-day" -> {
              Instant end = now.truncatedTo(ChronoUnit.DAYS);
              yield new ReportWindow(s, end.minus(Duration.ofDays(1)), end);
            }
            case "mtd" -> {
              var t = now.atOffset(ZoneOffset.UTC);
              Instant start = t.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).toInstant();
              if (!now.isAfter(start)) {
                // the first second of a month: report the month that just ended
                start = t.minusMonths(1).withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).toInstant();
              }
              yield new ReportWindow(s, start, now);
            }
            default -> explicit(s, now);
          };
    }
    if (w.length().compareTo(MAX) > 0) {
      throw new ConfigException(
          "report window '" + s + "' is longer than " + MAX.toDays() + " days");
    }
    return w;
  }

  private static ReportWindow explicit(String s, Instant now) {
    int slash = s.indexOf('/');
    if (slash < 0) {
      throw new ConfigException(
          "report window '"
              + s
              + "' is not one of 1h..9999h, 1d.., last-hour, last-day, mtd, or START/END"
              + " (ISO-8601, e.g. 2026-11-01T00:00Z/2026-11-02T00:00Z)");
    }
    Instant start = instant(s, s.substring(0, slash));
    Instant end = instant(s, s.substring(slash + 1));
    if (!end.isAfter(start)) {
      throw new ConfigException("report window '" + s + "': end is not after start");
    }
    if (start.isAfter(now)) {
      throw new ConfigException("report window '" + s + "' starts in the future");
    }
    return new ReportWindow("explicit", start, end.isAfter(now) ? now : end);
  }

  private static Instant instant(String spec, String text) {
    try {
      return OffsetDateTime.parse(text.trim()).toInstant();
    } catch (DateTimeParseException e) {
      try {
        return Instant.parse(text.trim());
      } catch (DateTimeParseException e2) {
        throw new ConfigException(
            "report window '" + spec + "': '" + text + "' is not an ISO-8601 instant with offset");
      }
    }
  }
}

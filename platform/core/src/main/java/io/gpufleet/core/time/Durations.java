package io.gpufleet.core.time;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The one duration parser: Go's notation as Kubernetes and Karpenter write it ({@code 1h30m},
 * {@code 90s}, {@code 500ms}: whole numbers, each with a unit h, m, s or ms, largest first or not),
 * and a bare whole number meaning seconds ({@code 15}, as environment variables often carry it).
 */
public final class Durations {
  private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:ms|h|m|s))+|\\d+");
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|h|m|s)");

  private Durations() {}

  /**
   * The duration {@code text} names.
   *
   * @throws IllegalArgumentException naming what was expected when {@code text} is not one
   */
  public static Duration parse(String text) {
    String t = text == null ? "" : text.trim();
    if (!WHOLE.matcher(t).matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration (examples: 15, 15s, 2m, 1h30m, 500ms)");
    }
    try {
      if (t.chars().allMatch(Character::isDigit)) {
        return Duration.ofSeconds(Long.parseLong(t));
      }
      Duration d = Duration.ZERO;
      var part = PART.matcher(t);
      while (part.find()) {
        long n = Long.parseLong(part.group(1));
        d =
            d.plus(
                switch (part.group(2)) {
                  case "h" -> Duration.ofHours(n);
                  case "m" -> Duration.ofMinutes(n);
                  case "ms" -> Duration.ofMillis(n);
                  default -> Duration.ofSeconds(n);
                });
      }
      return d;
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is too large to be a duration");
    }
  }
}

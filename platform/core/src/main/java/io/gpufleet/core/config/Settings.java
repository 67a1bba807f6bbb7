package io.gpufleet.core.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Typed reads of configuration (environment variables in Lambda, flags in the CLI). Every bad value
 * fails with the variable's name, the value and what was expected.
 */
public final class Settings {
  /**
   * One read of a variable as the code makes it: its kind ({@code string}, {@code required}, {@code
   * bool}, {@code integer}, {@code duration}, {@code one-of}), the fallback when unset (null: none)
   * and the values it accepts (null: any). The environment reference (docs/environment.md) is
   * generated from these.
   */
  public record Read(String name, String kind, String fallback, String accepts) {}

  private static final ThreadLocal<Settings> ENVIRONMENT = new ThreadLocal<>();

  private final Map<String, String> values;
  private final Consumer<Read> reads;

  public Settings(Map<String, String> values) {
    this(values, read -> {});
  }

  /** Settings over {@code values} that report every read to {@code reads}. */
  public Settings(Map<String, String> values, Consumer<Read> reads) {
    this.values = Map.copyOf(values);
    this.reads = reads;
  }

  /** The process environment (or, inside {@link #withEnvironment}, the given settings). */
  public static Settings fromEnvironment() {
    Settings given = ENVIRONMENT.get();
    return given != null ? given : new Settings(System.getenv());
  }

  /**
   * Runs {@code body} on this thread with {@link #fromEnvironment()} answering {@code settings}:
   * how the environment reference loads each function's wiring from its template environment.
   */
  public static <T> T withEnvironment(Settings settings, Supplier<T> body) {
    Settings before = ENVIRONMENT.get();
    ENVIRONMENT.set(settings);
    try {
      return body.get();
    } finally {
      ENVIRONMENT.set(before);
    }
  }

  /**
   * These settings with a settings document's values laid over them ({@code origin} names the
   * document in messages). A name set both in the environment and in the document, to different
   * values, is refused: one place decides each knob.
   */
  public Settings overlay(Map<String, String> document, String origin) {
    var merged = new java.util.HashMap<>(values);
    for (var entry : document.entrySet()) {
      String here = values.get(entry.getKey());
      if (here != null && !here.isBlank() && !here.trim().equals(entry.getValue().trim())) {
        throw new ConfigException(
            entry.getKey()
                + " is set both in the environment ('"
                + here.trim()
                + "') and in the settings document "
                + origin
                + " ('"
                + entry.getValue()
                + "'): keep one");
      }
      merged.put(entry.getKey(), entry.getValue());
    }
    return new Settings(merged, reads);
  }

  private Optional<String> value(String name, String kind, Object fallback, String accepts) {
    reads.accept(new Read(name, kind, fallback == null ? null : String.valueOf(fallback), accepts));
    String value = values.get(name);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  public Optional<String> optional(String name) {
    return value(name, "string", null, null);
  }

  public String string(String name, String fallback) {
    return value(name, "string", fallback, null).orElse(fallback);
  }

  public String required(String name) {
    return value(name, "required", null, null)
        .orElseThrow(() -> new ConfigException(name + " is required but not set"));
  }

  /** One of {@code allowed} (compared as given, after trimming), or {@code fallback} when unset. */
  public String oneOf(String name, String fallback, List<String> allowed) {
    String v = value(name, "one-of", fallback, String.join(" | ", allowed)).orElse(fallback);
    if (!allowed.contains(v)) {
      throw new ConfigException(
          name
              + "='"
              + v
              + "' is not "
              + (allowed.size() == 2
                  ? allowed.get(0) + " or " + allowed.get(1)
                  : "one of " + allowed));
    }
    return v;
  }

  public boolean bool(String name, boolean fallback) {
    var value = value(name, "bool", fallback, "true | false (also yes/no, 1/0, on/off)");
    if (value.isEmpty()) {
      return fallback;
    }
    return switch (value.get().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "yes", "1", "on" -> true;
      case "false", "no", "0", "off" -> false;
      default -> throw new ConfigException(name + "='" + value.get() + "' is not true or false");
    };
  }

  public int integer(String name, int fallback, int min, int max) {
    var value = value(name, "integer", fallback, min + ".." + max);
    if (value.isEmpty()) {
      return fallback;
    }
    try {
      int parsed = Integer.parseInt(value.get());
      if (parsed < min || parsed > max) {
        throw new ConfigException(
            name + "=" + parsed + " is outside the allowed range " + min + ".." + max);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new ConfigException(name + "='" + value.get() + "' is not a whole number");
    }
  }

  /** Seconds as a whole number ("15"), or a duration like "15s", "2m", "500ms". */
  public Duration duration(String name, Duration fallback, Duration max) {
    return duration(name, fallback, Duration.ZERO, max);
  }

  /** As {@link #duration(String, Duration, Duration)}, at least {@code min}. */
  public Duration duration(String name, Duration fallback, Duration min, Duration max) {
    var value = value(name, "duration", format(fallback), format(min) + ".." + format(max));
    if (value.isEmpty()) {
      return fallback;
    }
    Duration parsed = parseDuration(name, value.get());
    if (parsed.isNegative() || parsed.compareTo(max) > 0) {
      throw new ConfigException(name + "='" + value.get() + "' must be between 0 and " + max);
    }
    if (parsed.compareTo(min) < 0) {
      throw new ConfigException(name + "='" + value.get() + "' must be at least " + format(min));
    }
    return parsed;
  }

  /** A duration the way {@link #duration} reads it: "90s", "15m", "48h", "500ms", "0s". */
  public static String format(Duration d) {
    if (d == null) {
      return null;
    }
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0 && ms > 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms > 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  static Duration parseDuration(String name, String text) {
    try {
      return io.gpufleet.core.time.Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name + "=" + e.getMessage());
    }
  }
}

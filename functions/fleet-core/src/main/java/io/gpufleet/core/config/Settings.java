package io.gpufleet.core.config;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Typed reads of configuration (environment variables in Lambda, flags in the CLI). Every bad value
 * fails with the variable's name, the value and what was expected.
 */
public final class Settings {
  private final Map<String, String> values;

  public Settings(Map<String, String> values) {
    this.values = Map.copyOf(values);
  }

  public static Settings fromEnvironment() {
    return new Settings(System.getenv());
  }

  public Optional<String> optional(String name) {
    String value = values.get(name);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  public String string(String name, String fallback) {
    return optional(name).orElse(fallback);
  }

  public String required(String name) {
    return optional(name).orElseThrow(() -> new ConfigException(name + " is required but not set"));
  }

  public boolean bool(String name, boolean fallback) {
    var value = optional(name);
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
    var value = optional(name);
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
    var value = optional(name);
    if (value.isEmpty()) {
      return fallback;
    }
    Duration parsed = parseDuration(name, value.get());
    if (parsed.isNegative() || parsed.compareTo(max) > 0) {
      throw new ConfigException(name + "='" + value.get() + "' must be between 0 and " + max);
    }
    return parsed;
  }

  static Duration parseDuration(String name, String text) {
    try {
      return io.gpufleet.core.time.Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name + "=" + e.getMessage());
    }
  }
}

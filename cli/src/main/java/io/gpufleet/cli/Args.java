package io.gpufleet.cli;

import io.gpufleet.core.config.ConfigException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Flags of one subcommand: {@code --name value}, {@code --name=value} or a boolean {@code --flag}.
 */
final class Args {
  private final String command;
  private final Map<String, String> values = new LinkedHashMap<>();
  private final List<String> positional = new ArrayList<>();

  private Args(String command) {
    this.command = command;
  }

  /** Parses; any flag not in {@code withValue} or {@code booleans} is a precise error. */
  static Args parse(
      String command, List<String> argv, Set<String> withValue, Set<String> booleans) {
    var args = new Args(command);
    for (int i = 0; i < argv.size(); i++) {
      String a = argv.get(i);
      if (!a.startsWith("--")) {
        args.positional.add(a);
        continue;
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (booleans.contains(name)) {
        args.values.put(name, value == null ? "true" : value);
      } else if (withValue.contains(name)) {
        if (value == null) {
          if (i + 1 >= argv.size() || argv.get(i + 1).startsWith("--")) {
            throw new ConfigException(command + ": --" + name + " needs a value");
          }
          value = argv.get(++i);
        }
        args.values.put(name, value);
      } else {
        var known = new java.util.TreeSet<String>();
        withValue.forEach(k -> known.add("--" + k));
        booleans.forEach(k -> known.add("--" + k));
        throw new ConfigException(
            command
                + ": unknown flag --"
                + name
                + (known.isEmpty() ? "" : " (known: " + String.join(", ", known) + ")"));
      }
    }
    return args;
  }

  Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name)).filter(v -> !v.isBlank());
  }

  String require(String name) {
    return get(name)
        .orElseThrow(() -> new ConfigException(command + ": --" + name + " is required"));
  }

  boolean flag(String name) {
    String v = values.get(name);
    if (v == null) {
      return false;
    }
    return switch (v) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default ->
          throw new ConfigException(command + ": --" + name + "=" + v + " is not true or false");
    };
  }

  double number(String name, double fallback, double min, double max) {
    var v = get(name);
    if (v.isEmpty()) {
      return fallback;
    }
    try {
      double d = Double.parseDouble(v.get());
      if (d < min || d > max) {
        throw new ConfigException(
            command + ": --" + name + "=" + v.get() + " must be between " + min + " and " + max);
      }
      return d;
    } catch (NumberFormatException e) {
      throw new ConfigException(command + ": --" + name + "=" + v.get() + " is not a number");
    }
  }

  List<String> positional() {
    return positional;
  }
}

package io.gpufleet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.schema.SettingsDocument;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.ParameterNotFoundException;
import software.amazon.awssdk.services.ssm.model.ParameterType;

/**
 * {@code gpufleet settings check|show|put}: a function's settings document, checked by the same
 * schema and code the function's init uses before anything is written.
 */
@Command(
    name = "settings",
    synopsisSubcommandLabel = "COMMAND",
    description = {
      "A function's settings document: its tuning knobs (DRAIN_EVICTION_CONCURRENCY: 64, ...),"
          + " one YAML or JSON object per function, checked by schemas/settings/FUNCTION.schema.json"
          + " (docs/settings.md). A deployed function reads SSM parameter"
          + " /gpufleet/STACK/FUNCTION at init and again when its last read is a minute old; no"
          + " parameter: every knob keeps its default.",
      "Functions: interruption-drain, disruption-schedule, capacity-preflight, cost-report."
    },
    subcommands = {
      SettingsCommand.Check.class,
      SettingsCommand.Show.class,
      SettingsCommand.Put.class
    })
final class SettingsCommand implements Callable<Integer> {
  static final List<String> FUNCTIONS =
      List.of("interruption-drain", "disruption-schedule", "capacity-preflight", "cost-report");

  private final PrintStream out;

  @Mixin Cli.Help help;

  SettingsCommand(PrintStream out, PrintStream err) {
    this.out = out;
  }

  @Override
  public Integer call() {
    out.println("gpufleet settings: name a command: check, show or put (see --help)");
    return Cli.BAD_INPUT;
  }

  /** The function and document every subcommand names, checked the way init checks them. */
  abstract static class Document {
    @Parameters(index = "0", paramLabel = "FUNCTION", description = "The function.")
    String function;

    Map<String, String> knobs(Path file) throws IOException {
      return SettingsCommand.knobs(function, file);
    }
  }

  static Map<String, String> knobs(String function, Path file) throws IOException {
    if (!FUNCTIONS.contains(function)) {
      throw new ConfigException(
          "unknown function '" + function + "' (one of " + String.join(", ", FUNCTIONS) + ")");
    }
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("no such file: " + file);
    }
    return SettingsDocument.values(function, Files.readString(file), file.toString());
  }

  /** Where a deployed stack keeps the documents. */
  static final class Stack {
    @Option(
        names = "--stack",
        paramLabel = "NAME",
        defaultValue = "gpufleet",
        description = "Stack name (default: gpufleet).")
    String name;

    @Option(
        names = "--region",
        paramLabel = "REGION",
        description = "The stack's region (default: the SDK's default chain).")
    String region;

    SsmClient ssm() {
      var b = SsmClient.builder();
      return region == null ? b.build() : b.region(Region.of(region)).build();
    }
  }

  @Command(
      name = "check",
      description = {
        "Check a settings document as the function's init would: every problem with its knob,"
            + " nothing read from or written to AWS.",
        "Exit codes: 0 valid, 2 invalid (each problem on stderr)."
      })
  static final class Check extends Document implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    @Mixin Cli.Help help;

    @Parameters(index = "1", paramLabel = "FILE", description = "The document (YAML or JSON).")
    Path file;

    Check(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() throws IOException {
      try {
        var knobs = knobs(file);
        out.println(file + ": valid for " + function + " (" + knobs.size() + " knobs set)");
        return 0;
      } catch (ConfigException e) {
        err.println("gpufleet settings check: " + e.getMessage());
        return Cli.BAD_INPUT;
      }
    }
  }

  @Command(
      name = "put",
      description = {
        "Check a settings document, then write it to the stack's SSM parameter"
            + " /gpufleet/STACK/FUNCTION (String, overwritten). An invalid document is not"
            + " written. A running function reads its document again when its last read is a"
            + " minute old, and rewires itself when the text changed.",
        "Exit codes: 0 written, 2 invalid document, 1 AWS refused."
      })
  static final class Put extends Document implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    @Mixin Cli.Help help;

    @Parameters(index = "1", paramLabel = "FILE", description = "The document (YAML or JSON).")
    Path file;

    @Mixin Stack stack;

    Put(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() throws IOException {
      try (var ssm = stack.ssm()) {
        return put(ssm, stack.name, function, file, out, err);
      }
    }
  }

  /** Checks {@code file}, then writes it as {@code function}'s document of {@code stack}. */
  static int put(
      SsmClient ssm, String stack, String function, Path file, PrintStream out, PrintStream err)
      throws IOException {
    try {
      knobs(function, file);
    } catch (ConfigException e) {
      err.println("gpufleet settings put: " + e.getMessage() + " (nothing written)");
      return Cli.BAD_INPUT;
    }
    String name = SettingsDocument.parameterName(stack, function);
    String text = Files.readString(file);
    try {
      var version =
          ssm.putParameter(r -> r.name(name).value(text).type(ParameterType.STRING).overwrite(true))
              .version();
      out.println(
          "wrote ssm:"
              + name
              + " (version "
              + version
              + "); "
              + function
              + " applies it within a minute");
      return 0;
    } catch (software.amazon.awssdk.core.exception.SdkException e) {
      err.println("gpufleet settings put: " + name + ": " + e.getMessage());
      return 1;
    }
  }

  @Command(
      name = "show",
      description = {
        "Every knob of a function as its init would see it: the value from the stack's settings"
            + " document, or the default.",
        "Exit codes: 0 shown, 2 the deployed document is invalid, 1 AWS refused."
      })
  static final class Show implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    @Mixin Cli.Help help;

    @Parameters(index = "0", paramLabel = "FUNCTION", description = "The function.")
    String function;

    @Mixin Stack stack;

    Show(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() throws IOException {
      try (var ssm = stack.ssm()) {
        return show(ssm, stack.name, function, out, err);
      }
    }
  }

  /** Every knob of {@code function} in {@code stack}: the document's value or the default. */
  static int show(SsmClient ssm, String stack, String function, PrintStream out, PrintStream err)
      throws IOException {
    if (!FUNCTIONS.contains(function)) {
      err.println(
          "gpufleet settings show: unknown function '"
              + function
              + "' (one of "
              + String.join(", ", FUNCTIONS)
              + ")");
      return Cli.BAD_INPUT;
    }
    String name = SettingsDocument.parameterName(stack, function);
    Map<String, String> knobs;
    try {
      String text;
      try {
        text = ssm.getParameter(r -> r.name(name).withDecryption(true)).parameter().value();
      } catch (ParameterNotFoundException e) {
        text = "";
      }
      knobs = SettingsDocument.values(function, text, "ssm:" + name);
    } catch (ConfigException e) {
      err.println("gpufleet settings show: " + e.getMessage());
      return Cli.BAD_INPUT;
    } catch (software.amazon.awssdk.core.exception.SdkException e) {
      err.println("gpufleet settings show: " + name + ": " + e.getMessage());
      return 1;
    }
    out.println("ssm:" + name + (knobs.isEmpty() ? " (no document: defaults)" : ""));
    schema(function)
        .path("properties")
        .fields()
        .forEachRemaining(
            p -> {
              if (p.getKey().equals("$schema")) {
                return;
              }
              String set = knobs.get(p.getKey());
              JsonNode fallback = p.getValue().path("default");
              out.printf(
                  "  %-32s %s%n",
                  p.getKey(),
                  set != null
                      ? set + "  (document)"
                      : (fallback.isMissingNode() ? "(unset)" : fallback.asText()) + "  (default)");
            });
    return 0;
  }

  /** The function's schema as its jar carries it. */
  static JsonNode schema(String function) throws IOException {
    try (InputStream in =
        SettingsCommand.class
            .getClassLoader()
            .getResourceAsStream(SettingsDocument.resource(function))) {
      if (in == null) {
        throw new IOException("no " + SettingsDocument.resource(function) + " on the classpath");
      }
      return Json.MAPPER.readTree(in);
    }
  }
}

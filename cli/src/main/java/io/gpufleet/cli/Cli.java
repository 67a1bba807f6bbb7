package io.gpufleet.cli;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How every gpufleet command is parsed, helped and failed (picocli, set up once): {@code --help}
 * prints the command's usage to stdout and exits 0; an unknown option, command or a bad value
 * prints one line naming it and the command's usage to stderr and exits 2; a {@link
 * ConfigException} from a command exits 2 with its message; any other failure exits 1. Every other
 * exit code is the command's own.
 */
final class Cli {
  private Cli() {}

  static final int BAD_INPUT = 2;
  static final int FAILED = 1;

  /** {@code -h, --help} on every command ({@code @Mixin}). */
  static final class Help {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "Print this command's usage and exit.")
    boolean requested;
  }

  /** The command line of {@code command} (and its subcommands), writing to out and err. */
  static CommandLine commandLine(Object command, PrintStream out, PrintStream err) {
    var cl = new CommandLine(command, new Factory(out, err));
    cl.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
    cl.setErr(new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
    cl.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
    cl.setUsageHelpWidth(100);
    cl.setAbbreviatedOptionsAllowed(false);
    cl.registerConverter(Boolean.class, Cli::bool);
    cl.registerConverter(boolean.class, Cli::bool);
    cl.setParameterExceptionHandler(Cli::badInput);
    cl.setExecutionExceptionHandler(
        (e, failing, parsed) -> failed(e, failing.getCommandSpec(), failing.getErr()));
    headings(cl);
    return cl;
  }

  /** The same section headings on every command's usage. */
  private static void headings(CommandLine cl) {
    cl.getCommandSpec()
        .usageMessage()
        .synopsisHeading("usage: ")
        .descriptionHeading("%n")
        .parameterListHeading("%nArguments:%n")
        .optionListHeading("%nOptions:%n")
        .commandListHeading("%nCommands:%n");
    cl.getSubcommands().values().forEach(Cli::headings);
  }

  /**
   * Creates the commands: those taking {@code (PrintStream out, PrintStream err)} get the streams
   * of this run; everything else (mixins, converters) picocli's default factory makes.
   */
  private record Factory(PrintStream out, PrintStream err) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> cls) throws Exception {
      Constructor<K> streams;
      try {
        streams = cls.getDeclaredConstructor(PrintStream.class, PrintStream.class);
      } catch (NoSuchMethodException e) {
        return CommandLine.defaultFactory().create(cls);
      }
      streams.setAccessible(true);
      return streams.newInstance(out, err);
    }
  }

  /** true/yes/1 and false/no/0, as the flags always took them ({@code --baseline=false}). */
  static Boolean bool(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default ->
          throw new CommandLine.TypeConversionException("'" + text + "' is not true or false");
    };
  }

  /** One line naming the problem, then the usage of the command it is about; exit 2. */
  private static int badInput(ParameterException e, String[] argv) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    err.println(cl.getCommandSpec().qualifiedName() + ": " + message(e));
    err.println();
    cl.usage(err);
    return BAD_INPUT;
  }

  private static String message(ParameterException e) {
    CommandLine cl = e.getCommandLine();
    CommandSpec spec = cl.getCommandSpec();
    // an unknown word is the mistake to name, even when it also left a required option out
    List<String> unmatched =
        e instanceof UnmatchedArgumentException u ? u.getUnmatched() : cl.getUnmatchedArguments();
    if (unmatched.isEmpty()) {
      return e.getMessage();
    }
    String first = unmatched.get(0);
    List<String> close = new UnmatchedArgumentException(cl, List.of(first)).getSuggestions();
    String didYouMean =
        close.isEmpty() ? "" : " (did you mean " + String.join(" or ", close) + "?)";
    if (first.startsWith("-")) {
      return "Unknown option: '" + first + "'" + didYouMean;
    }
    if (!spec.subcommands().isEmpty()) {
      String word = spec.usageMessage().synopsisSubcommandLabel().toLowerCase(Locale.ROOT);
      return "unknown " + word + " '" + first + "'" + didYouMean;
    }
    return "unexpected argument '" + first + "'";
  }

  static int failed(Exception e, CommandSpec command, PrintWriter err) {
    if (e instanceof ConfigException) {
      err.println("gpufleet: " + e.getMessage());
      return BAD_INPUT;
    }
    String name = command.qualifiedName().replaceFirst("^gpufleet ?", "");
    err.println("gpufleet: " + (name.isEmpty() ? "" : name + " ") + "failed: " + e);
    return FAILED;
  }

  /** A bad option value found after parsing: reported like a parse error, with the usage. */
  static ParameterException bad(CommandSpec spec, String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /** {@code value} when {@code min <= value <= max}, else a precise error naming the option. */
  static int within(CommandSpec spec, String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw bad(spec, option + "=" + value + " must be between " + min + " and " + max);
    }
    return value;
  }

  static double within(CommandSpec spec, String option, double value, double min, double max) {
    if (!(value >= min && value <= max)) {
      throw bad(
          spec,
          option + "=" + plain(value) + " must be between " + plain(min) + " and " + plain(max));
    }
    return value;
  }

  private static String plain(double d) {
    return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
  }

  /**
   * A duration option ("120", "120s", "2m", "500ms") read by the one duration parser of the
   * functions' settings ({@link Settings#duration}), between 0 and {@code max}; {@code fallback}
   * when not given.
   */
  static Duration duration(
      CommandSpec spec, String option, String text, Duration fallback, Duration max) {
    try {
      return new Settings(text == null ? Map.of() : Map.of(option, text))
          .duration(option, fallback, max);
    } catch (ConfigException e) {
      throw bad(spec, e.getMessage());
    }
  }
}

package io.gpufleet.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The {@code gpufleet} command. */
@Command(
    name = "gpufleet",
    synopsisSubcommandLabel = "COMMAND",
    description = {
      "GPU Fleet Ops: the functions' real code from a laptop, against a simulated account and"
          + " cluster (no credentials) or a real one.",
      "Every command takes -h/--help. Exit codes: 0 done, 2 bad flag or input, 1 failure; a"
          + " command may name more (see its --help)."
    },
    subcommands = {
      SimulateCommand.class,
      InvokeCommand.class,
      DrainCommand.class,
      PreflightCommand.class,
      CostReportCommand.class,
      CostCommand.class,
      BudgetsCommand.class,
      BenchCommand.class,
      DocsCommand.class,
      ConfinementCommand.class,
      DoctorCommand.class,
      SettingsCommand.class,
      RehearseCommand.class,
      Main.Test.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Callable<Integer> {
  private final PrintStream out;

  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  Main(PrintStream out, PrintStream err) {
    this.out = out;
  }

  public static void main(String[] argv) {
    System.setProperty("gpufleet.logFormat", "text"); // lambda-logging: text on stderr, not JSON
    System.exit(run(Arrays.asList(argv), System.out, System.err));
  }

  static int run(List<String> argv, PrintStream out, PrintStream err) {
    return commandLine(out, err).execute(argv.toArray(String[]::new));
  }

  /** The whole command tree, writing to out and err. */
  static CommandLine commandLine(PrintStream out, PrintStream err) {
    return Cli.commandLine(new Main(out, err), out, err);
  }

  /** No command: the usage, exit 2. */
  @Override
  public Integer call() {
    spec.commandLine().usage(out);
    return Cli.BAD_INPUT;
  }

  /** Listed for the usage: the launcher script runs it, not this JVM. */
  @Command(
      name = "test",
      description = {
        "(launcher) Run the whole test suite as CI does (scripts/test.sh).",
        "./gpufleet test [MAVEN ARGS]: the launcher runs it; arguments go to mvn verify."
      })
  static final class Test implements Callable<Integer> {
    private final PrintStream err;

    @Mixin Cli.Help help;

    Test(PrintStream out, PrintStream err) {
      this.err = err;
    }

    @Override
    public Integer call() {
      err.println("gpufleet test: run it through the launcher, ./gpufleet test (scripts/test.sh)");
      return Cli.BAD_INPUT;
    }
  }
}

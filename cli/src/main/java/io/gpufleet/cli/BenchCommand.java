package io.gpufleet.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gpufleet bench NAME}: each benchmark runs its scenario and a baseline in the same run and
 * prints one JSON line last. The benchmarks' options are in {@link Benchmarks}.
 */
@Command(
    name = "bench",
    synopsisSubcommandLabel = "BENCHMARK",
    description = {
      "Benchmarks: each prints one JSON line last, exit 0 when its targets hold, 1 when not.",
      "The function runs in a child JVM confined to the CPU share of a Lambda memory size"
          + " (--memory MB, default: template.yaml's); the baseline runs in the same run."
    },
    subcommands = {
      Benchmarks.Drain.class,
      Benchmarks.DrainBurst.class,
      Benchmarks.Cold.class,
      Benchmarks.Preflight.class,
      Benchmarks.Budgets.class,
      Benchmarks.Cost.class,
      TuneCommand.class
    })
final class BenchCommand implements Callable<Integer> {
  private final PrintStream err;

  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  BenchCommand(PrintStream out, PrintStream err) {
    this.err = err;
  }

  @Override
  public Integer call() {
    throw Cli.bad(spec, "name a benchmark");
  }
}

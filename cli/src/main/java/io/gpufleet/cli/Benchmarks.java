package io.gpufleet.cli;

import io.gpufleet.bench.BudgetsBench;
import io.gpufleet.bench.BurstEnvironments;
import io.gpufleet.bench.ColdBench;
import io.gpufleet.bench.Confinement;
import io.gpufleet.bench.CostBench;
import io.gpufleet.bench.DrainBench;
import io.gpufleet.bench.DrainBurstBench;
import io.gpufleet.bench.LambdaShare;
import io.gpufleet.bench.PreflightBench;
import io.gpufleet.bench.RealDrainBench;
import io.gpufleet.bench.RestoredDrainBench;
import io.gpufleet.core.json.Json;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options of each {@code gpufleet bench NAME}: bound and range-checked here, then handed to the
 * benchmark ({@link DrainBench}, {@link DrainBurstBench}, {@link ColdBench}, {@link
 * PreflightBench}, {@link BudgetsBench}, {@link CostBench}, {@link RealDrainBench}). Each prints
 * its JSON result as the last line and exits 0 when it passes, 1 when not.
 */
final class Benchmarks {
  private Benchmarks() {}

  /** {@code --memory MB} and {@code --unconfined}: the Lambda share the function runs in. */
  static final class Share {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(
        names = "--memory",
        paramLabel = "MB",
        description =
            "Run the function at the CPU share of a Lambda function of this memory size, 128 to"
                + " 10240 (default: its MemorySize in template.yaml).")
    Integer memory;

    @Option(
        names = "--unconfined",
        description = "Give the function the whole machine, on purpose (no CPU share).")
    boolean unconfined;

    int memoryMb(String function) {
      return memory == null
          ? LambdaShare.TEMPLATE_MEMORY_MB.get(function)
          : Cli.within(spec, "--memory", memory, LambdaShare.MIN_MB, LambdaShare.MAX_MB);
    }

    /** The share a bench gives its function: --memory MB, else the template's size. */
    Confinement confinement(String function, String bench) {
      return Confinement.forBench(memoryMb(function), unconfined, bench);
    }

    /** The share of a burst's child: {@code environmentsAtOnce} drain shares. */
    Confinement burstConfinement(int environmentsAtOnce) {
      return DrainBurstBench.confinement(
          memoryMb("interruption-drain"), unconfined, environmentsAtOnce);
    }
  }

  /** {@code --baseline[=true|false]}: whether the bench also runs its baseline. */
  static final class Baseline {
    @Option(
        names = "--baseline",
        arity = "0..1",
        defaultValue = "true",
        paramLabel = "true|false",
        description = "Also run the baseline (default: true; --baseline=false skips it).")
    boolean run;
  }

  /**
   * What every bench command has: the run's streams (from {@link Cli}'s factory), {@code --help},
   * the Lambda {@link Share} and its own spec for range errors.
   */
  abstract static class Bench implements Callable<Integer> {
    final PrintStream out;
    final PrintStream err;

    @Mixin Cli.Help help;
    @Mixin Share share;
    @Spec CommandSpec spec;

    Bench(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }
  }

  /** Prints the result as one JSON line; exit 0 when it passed. */
  static int report(PrintStream out, Map<String, Object> result) {
    out.println(Json.write(result));
    return Boolean.TRUE.equals(result.get("pass")) ? 0 : 1;
  }

  @Command(
      name = "drain",
      description =
          "One node's drain against the simulated API server (--real: a real kube-apiserver),"
              + " against client-go's sequential QPS-5 evictions.")
  static final class Drain extends Bench {
    @Option(
        names = "--real",
        description =
            "Against a real kube-apiserver, etcd and kwok (scripts/k8s-bins.sh), not confined.")
    boolean real;

    @Option(
        names = "--pods",
        paramLabel = "N",
        description = "Pods on the node, 1 to 5000 (--real: to 110; default: 110).")
    Integer pods;

    @Option(
        names = "--latency-ms",
        paramLabel = "MS",
        description = "Latency the simulated API server adds per request, 0 to 1000 (default: 20).")
    Integer latencyMs;

    @Mixin Baseline baseline;

    @Option(
        names = "--restored",
        description =
            "The first event after a SnapStart restore: INIT and the beforeCheckpoint priming in a"
                + " fresh function JVM, then the event; beside it the same without the priming"
                + " drain (not with --real).")
    boolean restored;

    @Option(
        names = "--runs",
        paramLabel = "N",
        description = "With --restored: runs of each mode, 1 to 21, medians reported (default: 5).")
    Integer runs;

    Drain(PrintStream out, PrintStream err) {
      super(out, err);
    }

    @Override
    public Integer call() throws Exception {
      if (runs != null && !restored) {
        throw Cli.bad(spec, "--runs applies to --restored only");
      }
      if (real) {
        if (restored) {
          throw Cli.bad(spec, "--restored runs against the simulated API server, not --real");
        }
        if (latencyMs != null) {
          throw Cli.bad(spec, "--latency-ms applies to the simulated API server only, not --real");
        }
        if (share.memory != null || share.unconfined) {
          throw Cli.bad(
              spec, "--memory and --unconfined do not apply to --real (it runs in this JVM)");
        }
        // a node admits 110 pods
        int n = Cli.within(spec, "--pods", pods == null ? 110 : pods, 1, 110);
        return report(out, new RealDrainBench(err).run(n));
      }
      int n = Cli.within(spec, "--pods", pods == null ? 110 : pods, 1, 5000);
      int latency = Cli.within(spec, "--latency-ms", latencyMs == null ? 20 : latencyMs, 0, 1000);
      try (var confinement = share.confinement("interruption-drain", "drain")) {
        if (restored) {
          int r = Cli.within(spec, "--runs", runs == null ? 5 : runs, 1, 21);
          return report(out, new RestoredDrainBench(err).run(n, latency, r, confinement));
        }
        return report(out, new DrainBench(err).drain(n, latency, baseline.run, confinement));
      }
    }
  }

  @Command(
      name = "drain-burst",
      description =
          "A burst of spot warnings at once, one Lambda environment each, against cordoning the"
              + " nodes one after another.")
  static final class DrainBurst extends Bench {
    @Option(
        names = "--events",
        paramLabel = "N",
        defaultValue = "200",
        description = "Events in the burst, 1 to 2000 (default: ${DEFAULT-VALUE}).")
    int events;

    @Option(
        names = "--environments",
        paramLabel = "E",
        description =
            "Lambda environments the burst runs on, 1 to --events (default: one per event, as a"
                + " DrainReservedConcurrency sized by the README's rule gives; fewer models an"
                + " undersized deployment, e.g. the template default "
                + DrainBurstBench.DRAIN_RESERVED_CONCURRENCY
                + ").")
    Integer environments;

    @Option(
        names = "--clusters",
        paramLabel = "N",
        defaultValue = "1",
        description =
            "Simulated clusters the drain routes among, 1 to 10, the burst's nodes in the last"
                + " (default: ${DEFAULT-VALUE}).")
    int clusters;

    @Option(
        names = "--ec2-latency-ms",
        paramLabel = "MS",
        defaultValue = "" + DrainBurstBench.EC2_LATENCY_MS,
        description =
            "Latency the simulated EC2 adds per DescribeInstances, 0 to 5000 (default:"
                + " ${DEFAULT-VALUE}).")
    int ec2LatencyMs;

    @Option(
        names = "--all-at-once",
        description =
            "Run every environment at once in one child, its share capped at the host's CPUs"
                + " (context only: on a small host each environment gets a sliver of a CPU)."
                + " Default: waves of W = floor(host CPUs / the share's CPUs) environments, each"
                + " with its whole Lambda share, each measured from its own start.")
    boolean allAtOnce;

    @Option(
        names = "--restored",
        description =
            "Before the burst the JVM runs the function's SnapStart priming (a loopback drain) and"
                + " afterRestore, as a restored snapshot holds them, instead of a warm-up drain.")
    boolean restored;

    @Option(
        names = "--pods",
        paramLabel = "N",
        defaultValue = "30",
        description = "Pods per node, 0 to 500 (default: ${DEFAULT-VALUE}).")
    int pods;

    @Option(
        names = "--latency-ms",
        paramLabel = "MS",
        defaultValue = "20",
        description =
            "Latency the simulated API server adds per request, 0 to 1000 (default:"
                + " ${DEFAULT-VALUE}).")
    int latencyMs;

    DrainBurst(PrintStream out, PrintStream err) {
      super(out, err);
    }

    @Override
    public Integer call() throws Exception {
      Cli.within(spec, "--events", events, 1, 2000);
      Cli.within(spec, "--pods", pods, 0, 500);
      Cli.within(spec, "--latency-ms", latencyMs, 0, 1000);
      Cli.within(spec, "--clusters", clusters, 1, 10);
      Cli.within(spec, "--ec2-latency-ms", ec2LatencyMs, 0, 5000);
      int environmentCount =
          environments == null
              ? DrainBurstBench.burstEnvironments(events)
              : Cli.within(spec, "--environments", environments, 1, events);
      var schedule =
          allAtOnce
              ? BurstEnvironments.Schedule.allAtOnce(environmentCount)
              : BurstEnvironments.Schedule.inWaves(
                  BurstEnvironments.waveWidth(
                      DrainBurstBench.hostCpus(),
                      new LambdaShare(share.memoryMb("interruption-drain"))));
      try (var confinement = share.burstConfinement(Math.min(schedule.width(), environmentCount))) {
        return report(
            out,
            new DrainBurstBench(err)
                .burst(
                    events,
                    environmentCount,
                    schedule,
                    pods,
                    latencyMs,
                    clusters,
                    ec2LatencyMs,
                    confinement,
                    restored));
      }
    }
  }

  @Command(
      name = "cold",
      description =
          "A fresh JVM running the function's deployment jar to its first handled event, against"
              + " the JVM alone.")
  static final class Cold extends Bench {
    @Option(
        names = "--function",
        paramLabel = "F",
        defaultValue = "interruption-drain",
        description =
            "interruption-drain (default), disruption-schedule, capacity-preflight, cost-report"
                + " (needs moto_server: MOTO_SERVER or the .venv of ./gpufleet test).")
    String function;

    @Option(
        names = "--runs",
        paramLabel = "N",
        defaultValue = "3",
        description = "Fresh JVMs to time, 1 to 20 (default: ${DEFAULT-VALUE}).")
    int runs;

    Cold(PrintStream out, PrintStream err) {
      super(out, err);
    }

    @Override
    public Integer call() throws Exception {
      if (!LambdaShare.TEMPLATE_MEMORY_MB.containsKey(function)) {
        throw Cli.bad(
            spec,
            "unknown --function "
                + function
                + " ("
                + String.join(
                    ", ", new java.util.TreeSet<>(LambdaShare.TEMPLATE_MEMORY_MB.keySet()))
                + ")");
      }
      Cli.within(spec, "--runs", runs, 1, 20);
      try (var confinement = share.confinement(function, "cold")) {
        return report(out, new ColdBench(err).run(function, runs, confinement));
      }
    }
  }

  @Command(
      name = "preflight",
      description =
          "A plan over up to 17 regions behind AWS API latency, with the function's fan-out and"
              + " one call after another.")
  static final class Preflight extends Bench {
    @Option(
        names = "--latency-ms",
        paramLabel = "MS",
        defaultValue = "100",
        description = "Latency per AWS request, 0 to 1000 (default: ${DEFAULT-VALUE}).")
    int latencyMs;

    @Option(
        names = "--regions",
        paramLabel = "N",
        defaultValue = "17",
        description = "Regions in the plan, 1 to 17 (default: ${DEFAULT-VALUE}).")
    int regions;

    @Mixin Baseline baseline;

    Preflight(PrintStream out, PrintStream err) {
      super(out, err);
    }

    @Override
    public Integer call() throws Exception {
      Cli.within(spec, "--latency-ms", latencyMs, 0, 1000);
      Cli.within(spec, "--regions", regions, 1, 17);
      try (var confinement = share.confinement("capacity-preflight", "preflight")) {
        return report(
            out, new PreflightBench(err).run(latencyMs, regions, baseline.run, confinement));
      }
    }
  }

  @Command(
      name = "budgets",
      description =
          "A night-time reconcile of many NodePools and workloads behind API latency, against one"
              + " write at a time.")
  static final class Budgets extends Bench {
    @Option(
        names = "--pools",
        paramLabel = "N",
        defaultValue = "50",
        description = "NodePools, 1 to 500 (default: ${DEFAULT-VALUE}).")
    int pools;

    @Option(
        names = "--workloads",
        paramLabel = "N",
        defaultValue = "500",
        description = "Scaled workloads, 1 to 5000 (default: ${DEFAULT-VALUE}).")
    int workloads;

    @Option(
        names = "--latency-ms",
        paramLabel = "MS",
        defaultValue = "10",
        description =
            "Latency the simulated API server adds per request, 0 to 1000 (default:"
                + " ${DEFAULT-VALUE}).")
    int latencyMs;

    @Mixin Baseline baseline;

    Budgets(PrintStream out, PrintStream err) {
      super(out, err);
    }

    @Override
    public Integer call() throws Exception {
      Cli.within(spec, "--pools", pools, 1, 500);
      Cli.within(spec, "--workloads", workloads, 1, 5000);
      Cli.within(spec, "--latency-ms", latencyMs, 0, 1000);
      try (var confinement = share.confinement("disruption-schedule", "budgets")) {
        return report(
            out, new BudgetsBench(err).run(pools, workloads, latencyMs, baseline.run, confinement));
      }
    }
  }

  @Command(
      name = "cost",
      description =
          "A whole cost report run over many instances and pods, against the naive per-pod way.")
  static final class Cost extends Bench {
    @Option(
        names = "--instances",
        paramLabel = "N",
        defaultValue = "10000",
        description = "EC2 instances, 1 to 100000 (default: ${DEFAULT-VALUE}).")
    int instances;

    @Option(
        names = "--pods",
        paramLabel = "N",
        defaultValue = "100000",
        description = "Pods, 0 to 1000000 (default: ${DEFAULT-VALUE}).")
    int pods;

    Cost(PrintStream out, PrintStream err) {
      super(out, err);
    }

    @Override
    public Integer call() throws Exception {
      Cli.within(spec, "--instances", instances, 1, 100_000);
      Cli.within(spec, "--pods", pods, 0, 1_000_000);
      try (var confinement = share.confinement("cost-report", "cost")) {
        return report(out, new CostBench(err).run(instances, pods, confinement));
      }
    }
  }
}

package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.bench.LambdaShare;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * The gpufleet command line as picocli parses it: every command's --help, what a bad option or
 * command gets, and that each command's options land where its logic reads them (parsed only:
 * nothing runs).
 */
class CliParsingTest extends CapturedCli {

  /** Every command and subcommand of the tree, as the words that name it ("bench drain"). */
  static Stream<String> commands() {
    var names = new ArrayList<String>();
    walk(Main.commandLine(System.out, System.err), "", names);
    return names.stream();
  }

  private static void walk(CommandLine cl, String prefix, List<String> names) {
    cl.getSubcommands()
        .forEach(
            (name, sub) -> {
              if (name.equals("help")) {
                return;
              }
              String path = (prefix + " " + name).trim();
              names.add(path);
              walk(sub, path, names);
            });
  }

  /** Parses argv without running anything; returns the command the words name. */
  @SuppressWarnings("unchecked")
  static <T> T parsed(Class<T> type, String... argv) {
    var null_ = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    var result = Main.commandLine(null_, null_).parseArgs(argv);
    var list = result.asCommandLineList();
    Object command = list.get(list.size() - 1).getCommand();
    assertThat(command).isInstanceOf(type);
    return (T) command;
  }

  @Test
  void shouldListEveryCommandTheUsageNames() {
    assertThat(commands())
        .contains(
            "simulate",
            "invoke",
            "drain",
            "preflight",
            "cost-report",
            "budgets",
            "budgets render",
            "budgets apply",
            "budgets rbac",
            "bench",
            "bench drain",
            "bench drain-burst",
            "bench cold",
            "bench preflight",
            "bench budgets",
            "bench cost",
            "bench tune",
            "test");
  }

  @Nested
  class Help {
    @ParameterizedTest
    @MethodSource("io.gpufleet.cli.CliParsingTest#commands")
    void shouldPrintTheUsageOfEveryCommandAndExitZero(String command) {
      var argv = new ArrayList<>(List.of(command.split(" ")));
      argv.add("--help");

      int code = run(argv.toArray(String[]::new));

      assertThat(code).isZero();
      assertThat(out()).startsWith("usage: gpufleet " + command + " ").contains("-h, --help");
      assertThat(err()).isEmpty();
    }

    @Test
    void shouldPrintTheUsageOfTheWholeCommandForHelpAndDashDashHelp() {
      assertThat(run("--help")).isZero();
      assertThat(run("-h")).isZero();
      assertThat(out()).startsWith("usage: gpufleet ").contains("simulate").contains("bench");
      assertThat(err()).isEmpty();
    }

    @Test
    void shouldPrintACommandsUsageThroughTheHelpCommand() {
      assertThat(run("help", "preflight")).isZero();
      assertThat(out()).startsWith("usage: gpufleet preflight ").contains("--nodepools");
    }

    @Test
    void shouldShowTheDefaultsThatTheOptionsTake() {
      assertThat(run("bench", "drain-burst", "--help")).isZero();
      assertThat(out()).contains("--events=N").contains("(default: 200)");
    }
  }

  @Nested
  class BadInput {
    @ParameterizedTest
    @MethodSource("io.gpufleet.cli.CliParsingTest#commands")
    void shouldNameAnUnknownOptionOnOneLineThenTheUsageAndExitTwo(String command) {
      var argv = new ArrayList<>(List.of(command.split(" ")));
      argv.add("--xyzzy");

      int code = run(argv.toArray(String[]::new));

      assertThat(code).isEqualTo(2);
      assertThat(err().lines().findFirst().orElseThrow())
          .isEqualTo("gpufleet " + command + ": Unknown option: '--xyzzy'");
      assertThat(err()).contains("usage: gpufleet " + command + " ");
      assertThat(out()).isEmpty();
    }

    @Test
    void shouldSuggestTheOptionOrCommandMeant() {
      assertThat(run("simulate", "--jsn")).isEqualTo(2);
      assertThat(run("bench", "drian")).isEqualTo(2);
      assertThat(err().lines().filter(l -> l.startsWith("gpufleet ")))
          .containsExactly(
              "gpufleet simulate: Unknown option: '--jsn' (did you mean --json?)",
              "gpufleet bench: unknown benchmark 'drian' (did you mean drain or drain-burst?)");
    }

    @Test
    void shouldNameAnUnknownCommandAndExitTwo() {
      assertThat(run("budgets", "delete")).isEqualTo(2);
      assertThat(err()).startsWith("gpufleet budgets: unknown command 'delete'");
      assertThat(err()).contains("render").contains("apply").contains("rbac");
    }

    @Test
    void shouldAskForASubcommandAndExitTwo() {
      assertThat(run("budgets")).isEqualTo(2);
      assertThat(err()).startsWith("gpufleet budgets: say render, apply or rbac");
      assertThat(out()).isEmpty();
    }

    /** A misuse, the words that make it and the line its refusal starts with. */
    static Stream<Arguments> refusals() {
      return Stream.of(
          refusal(
              "an unknown option, not the required ones it left out",
              "gpufleet drain: Unknown option: '--xyzzy'\n",
              "drain",
              "--xyzzy"),
          refusal(
              "a value that is not a number",
              "gpufleet bench cost: Invalid value for option '--pods': 'many' is not an int",
              "bench",
              "cost",
              "--pods",
              "many"),
          refusal(
              "a number out of range, before running",
              "gpufleet bench drain: --pods=111 must be between 1 and 110",
              "bench",
              "drain",
              "--real",
              "--pods",
              "111"),
          refusal(
              "more environments than events",
              "gpufleet bench drain-burst: --environments=11 must be between 1 and 10",
              "bench",
              "drain-burst",
              "--events",
              "10",
              "--environments",
              "11"),
          refusal(
              "an option of another benchmark",
              "gpufleet bench cold: Unknown option: '--pods'\n",
              "bench",
              "cold",
              "--pods",
              "5"),
          refusal(
              "a bad duration, with the shared parser's message",
              "gpufleet drain: --deadline='2x' is not a duration (examples: 15, 15s, 2m",
              "drain",
              "--instance",
              "i-0123456789abcdef0",
              "--cluster",
              "c",
              "--deadline",
              "2x"),
          refusal(
              "neither a plan nor node pools",
              "gpufleet preflight: --plan FILE is required",
              "preflight",
              "--simulate"));
    }

    /** Misuses whose refusal is checked by a part of its message. */
    static Stream<Arguments> refusalsSaying() {
      return Stream.of(
          refusal(
              "latency with the real API server",
              "--latency-ms applies to the simulated API server only",
              "bench",
              "drain",
              "--real",
              "--latency-ms",
              "5"),
          refusal(
              "a share with the real API server",
              "--memory and --unconfined do not apply to --real",
              "bench",
              "drain",
              "--real",
              "--memory",
              "1024"),
          refusal(
              "a duration above its maximum",
              "--timeout='11m' must be between 0 and PT10M",
              "preflight",
              "--plan",
              "p.yaml",
              "--timeout",
              "11m"),
          refusal(
              "files after a plan",
              "unexpected argument 'extra.yaml'",
              "preflight",
              "--plan",
              "p.yaml",
              "extra.yaml"),
          refusal(
              "a truth value that is none",
              "'maybe' is not true or false",
              "bench",
              "budgets",
              "--baseline=maybe"));
    }

    private static Arguments refusal(String misuse, String message, String... argv) {
      return Arguments.of(misuse, message, argv);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void shouldRefuseWithExitTwoNamingTheProblemFirst(String misuse, String start, String[] argv) {
      assertThat(run(argv)).isEqualTo(2);
      assertThat(err()).startsWith(start);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusalsSaying")
    void shouldRefuseWithExitTwoSayingWhy(String misuse, String message, String[] argv) {
      assertThat(run(argv)).isEqualTo(2);
      assertThat(err()).contains(message);
    }
  }

  @Nested
  class Failures {
    @Test
    void shouldExitTwoWithTheMessageOfAConfigurationError() {
      var text = new StringWriter();
      var spec = Main.commandLine(System.out, System.err).getSubcommands().get("drain");

      int code =
          Cli.failed(
              new io.gpufleet.core.config.ConfigException("drain: bad"),
              spec.getCommandSpec(),
              new PrintWriter(text, true));

      assertThat(code).isEqualTo(2);
      assertThat(text.toString()).isEqualTo("gpufleet: drain: bad" + System.lineSeparator());
    }

    @Test
    void shouldExitOneNamingTheCommandForAnyOtherFailure() {
      var text = new StringWriter();
      var spec = Main.commandLine(System.out, System.err).getSubcommands().get("bench");

      int code =
          Cli.failed(
              new IllegalStateException("boom"),
              spec.getSubcommands().get("cold").getCommandSpec(),
              new PrintWriter(text, true));

      assertThat(code).isEqualTo(1);
      assertThat(text.toString())
          .startsWith("gpufleet: bench cold failed: java.lang.IllegalStateException: boom");
    }

    @Test
    void shouldKeepTheCommandsOwnExitCode() {
      // an unreadable payload is reported with the rest: exit 1, the command's own
      int code = run("invoke", "drain", "/nonexistent/gpufleet-payload.json", "--json");

      assertThat(code).isEqualTo(1);
      assertThat(out()).contains("cannot read");
    }
  }

  @Nested
  class Binding {
    @Test
    void shouldBindSimulate() {
      var c =
          parsed(
              SimulateCommand.class, "simulate", "--events", "/tmp/ev", "--speed", "50", "--json");

      assertThat(c.events).isEqualTo(Path.of("/tmp/ev"));
      assertThat(c.speed).isEqualTo(50.0);
      assertThat(c.json).isTrue();
    }

    @Test
    void shouldBindSimulateDefaults() {
      var c = parsed(SimulateCommand.class, "simulate");

      assertThat(c.events).isNull();
      assertThat(c.speed).isEqualTo(20.0);
      assertThat(c.json).isFalse();
    }

    @Test
    void shouldBindDrain() {
      var c =
          parsed(
              DrainCommand.class,
              "drain",
              "--instance",
              "i-0123456789abcdef0",
              "--cluster=gpu-prod",
              "--region",
              "eu-west-1",
              "--kubeconfig",
              "--context",
              "prod",
              "--kind",
              "health-scheduled",
              "--deadline",
              "5m",
              "--dry-run",
              "--json");

      assertThat(c.instance).isEqualTo("i-0123456789abcdef0");
      assertThat(c.target.cluster).isEqualTo("gpu-prod");
      assertThat(c.target.region).isEqualTo("eu-west-1");
      assertThat(c.target.kubeconfig).isTrue();
      assertThat(c.target.context).isEqualTo("prod");
      assertThat(c.kind).isEqualTo("health-scheduled");
      assertThat(c.deadline).isEqualTo("5m");
      assertThat(Cli.duration(null, "--deadline", c.deadline, Duration.ZERO, Duration.ofHours(1)))
          .isEqualTo(Duration.ofMinutes(5));
      assertThat(c.dryRun).isTrue();
      assertThat(c.json).isTrue();
    }

    @Test
    void shouldBindAFlagGivenAValueAsBefore() {
      var c =
          parsed(
              DrainCommand.class,
              "drain",
              "--instance",
              "i-0123456789abcdef0",
              "--cluster",
              "c",
              "--dry-run=false",
              "--json=yes");

      assertThat(c.dryRun).isFalse();
      assertThat(c.json).isTrue();
      assertThat(c.kind).isEqualTo("spot-interruption");
    }

    @Test
    void shouldBindInvokeWithFilesBeforeAndAfterTheFlags() {
      var c =
          parsed(
              InvokeCommand.class,
              "invoke",
              "--shared",
              "schedule",
              "a.json",
              "--speed",
              "40",
              "b.json",
              "--policy",
              "p.yaml",
              "--rebase",
              "--cluster",
              "gpu-prod",
              "--region",
              "us-west-2");

      assertThat(c.functionName).isEqualTo("schedule");
      assertThat(c.files).containsExactly(Path.of("a.json"), Path.of("b.json"));
      assertThat(c.shared).isTrue();
      assertThat(c.speed).isEqualTo(40.0);
      assertThat(c.policy).isEqualTo(Path.of("p.yaml"));
      assertThat(c.rebase).isTrue();
      assertThat(c.target.cluster).isEqualTo("gpu-prod");
      assertThat(c.target.region).isEqualTo("us-west-2");
      assertThat(c.target.kubeconfig).isFalse();
    }

    @Test
    void shouldBindPreflightPlan() {
      var c =
          parsed(
              PreflightCommand.class,
              "preflight",
              "--plan",
              "plan.yaml",
              "--regions",
              "us-east-1,us-west-2",
              "--region",
              "us-east-1",
              "--cluster",
              "prod-gpu",
              "--timeout",
              "30s",
              "--simulate",
              "--json");

      assertThat(c.plan).isEqualTo(Path.of("plan.yaml"));
      assertThat(c.regions).containsExactly("us-east-1", "us-west-2");
      assertThat(c.region).isEqualTo("us-east-1");
      assertThat(c.cluster).isEqualTo("prod-gpu");
      assertThat(c.timeout).isEqualTo("30s");
      assertThat(c.simulate).isTrue();
      assertThat(c.json).isTrue();
    }

    @Test
    void shouldBindPreflightNodePools() {
      var c =
          parsed(
              PreflightCommand.class,
              "preflight",
              "--nodepools",
              "a.yaml,b.yaml",
              "c.yaml",
              "--quota",
              "p/spot=384,g/on-demand=192",
              "--karpenter-version",
              "1.14.0",
              "--karpenter-setting",
              "ignoreDRARequests=false",
              "--kubernetes-version",
              "1.34",
              "--cluster-autoscaler-version",
              "1.34.1",
              "--cluster-autoscaler-dra",
              "yes");

      assertThat(c.nodePools).containsExactly("a.yaml", "b.yaml");
      assertThat(c.moreNodePools).containsExactly("c.yaml");
      assertThat(c.quota).isEqualTo("p/spot=384,g/on-demand=192");
      assertThat(c.karpenterVersion).isEqualTo("1.14.0");
      assertThat(c.karpenterSetting).isEqualTo("ignoreDRARequests=false");
      assertThat(c.kubernetesVersion).isEqualTo("1.34");
      assertThat(c.clusterAutoscalerVersion).isEqualTo("1.34.1");
      assertThat(c.clusterAutoscalerDra).isTrue();
    }

    @Test
    void shouldBindCostReport() {
      var c =
          parsed(
              CostReportCommand.class,
              "cost-report",
              "--cluster",
              "prod-gpu",
              "--out",
              "./cost",
              "--window",
              "mtd",
              "--kubeconfig",
              "--context",
              "prod",
              "--allocation-rule",
              "even",
              "--team-label",
              "team",
              "--json");

      assertThat(c.target.cluster).isEqualTo("prod-gpu");
      assertThat(c.outDir).isEqualTo(Path.of("./cost"));
      assertThat(c.window).isEqualTo("mtd");
      assertThat(c.target.kubeconfig).isTrue();
      assertThat(c.target.context).isEqualTo("prod");
      assertThat(c.allocationRule).isEqualTo("even");
      assertThat(c.teamLabel).isEqualTo("team");
      assertThat(c.json).isTrue();
    }

    @Test
    void shouldBindBudgetsSubcommands() {
      var apply =
          parsed(
              BudgetsCommand.Apply.class,
              "budgets",
              "apply",
              "--policy",
              "p.yaml",
              "--at",
              "2026-03-29T02:30:00+02:00",
              "--dry-run",
              "--cluster",
              "gpu-prod",
              "--region",
              "eu-central-1");
      var render = parsed(BudgetsCommand.Render.class, "budgets", "render", "--policy", "p.yaml");
      var rbac = parsed(BudgetsCommand.Rbac.class, "budgets", "rbac", "--policy", "p.yaml");

      assertThat(apply.policy).isEqualTo(Path.of("p.yaml"));
      assertThat(apply.at).isEqualTo("2026-03-29T02:30:00+02:00");
      assertThat(apply.dryRun).isTrue();
      assertThat(apply.target.cluster).isEqualTo("gpu-prod");
      assertThat(apply.target.region).isEqualTo("eu-central-1");
      assertThat(render.at).isNull();
      assertThat(render.json).isFalse();
      assertThat(rbac.group).isEqualTo("gpufleet-schedule");
    }

    @Test
    void shouldBindTheBenchmarksAndTheirDefaults() {
      var drain =
          parsed(
              Benchmarks.Drain.class,
              "bench",
              "drain",
              "--baseline=false",
              "--memory",
              "1024",
              "--pods",
              "20",
              "--latency-ms",
              "0");
      var burst = parsed(Benchmarks.DrainBurst.class, "bench", "drain-burst", "--unconfined");
      var cold = parsed(Benchmarks.Cold.class, "bench", "cold", "--function", "cost-report");
      var preflight = parsed(Benchmarks.Preflight.class, "bench", "preflight", "--regions", "3");
      var budgets = parsed(Benchmarks.Budgets.class, "bench", "budgets", "--baseline", "false");
      var cost = parsed(Benchmarks.Cost.class, "bench", "cost", "--instances", "100");

      assertThat(drain.baseline.run).isFalse();
      assertThat(drain.share.memory).isEqualTo(1024);
      assertThat(drain.share.memoryMb("interruption-drain")).isEqualTo(1024);
      assertThat(drain.pods).isEqualTo(20);
      assertThat(drain.latencyMs).isZero();
      assertThat(drain.real).isFalse();
      assertThat(burst.share.unconfined).isTrue();
      assertThat(burst.share.memoryMb("interruption-drain"))
          .isEqualTo(LambdaShare.TEMPLATE_MEMORY_MB.get("interruption-drain"));
      assertThat(burst.events).isEqualTo(200);
      assertThat(burst.pods).isEqualTo(30);
      assertThat(burst.latencyMs).isEqualTo(20);
      assertThat(burst.environments).isNull();
      assertThat(burst.allAtOnce).as("waves by default").isFalse();
      assertThat(
              parsed(Benchmarks.DrainBurst.class, "bench", "drain-burst", "--all-at-once")
                  .allAtOnce)
          .isTrue();
      assertThat(
              parsed(Benchmarks.DrainBurst.class, "bench", "drain-burst", "--environments", "7")
                  .environments)
          .isEqualTo(7);
      assertThat(cold.function).isEqualTo("cost-report");
      assertThat(cold.runs).isEqualTo(3);
      assertThat(preflight.regions).isEqualTo(3);
      assertThat(preflight.latencyMs).isEqualTo(100);
      assertThat(preflight.baseline.run).isTrue();
      assertThat(budgets.baseline.run).isFalse();
      assertThat(budgets.pools).isEqualTo(50);
      assertThat(budgets.workloads).isEqualTo(500);
      assertThat(budgets.latencyMs).isEqualTo(10);
      assertThat(cost.instances).isEqualTo(100);
      assertThat(cost.pods).isEqualTo(100_000);
    }

    @Test
    void shouldBindTune() {
      var c =
          parsed(
              TuneCommand.class,
              "bench",
              "tune",
              "capacity-preflight",
              "--sizes",
              "512,1024",
              "--runs",
              "5",
              "--warm-runs",
              "3");

      assertThat(c.function).isEqualTo("capacity-preflight");
      assertThat(c.sizes).isEqualTo("512,1024");
      assertThat(c.runs).isEqualTo(5);
      assertThat(c.warmRunsWanted).isEqualTo(3);
    }
  }
}

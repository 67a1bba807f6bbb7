package io.gpufleet.cli;

import io.gpufleet.core.config.ConfigException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The {@code gpufleet} command. */
public final class Main {
  private Main() {}

  static final String USAGE =
      """
      usage: gpufleet COMMAND [flags]

        simulate                 replay events/ through the real handlers against a simulated
                                 account and cluster (no credentials)   [--json] [--speed N] [--events DIR]
        invoke FUNCTION FILE...  run payload files through a function's real handler (interruption-drain,
                                 cost-report, disruption-schedule, capacity-preflight) against the
                                 simulated account and cluster, each file on a fresh one
                                 [--shared] [--json] [--rebase] [--speed N] [--policy FILE]
                                 [--cluster NAME (--kubeconfig [--context C] | --region R)]: a real
                                 cluster (interruption-drain, disruption-schedule)
        drain                    drain one node of a real cluster now, or show what would happen
                                 --instance ID --cluster NAME [--region R] [--kubeconfig [--context C]]
                                 [--dry-run] [--kind spot-interruption|health-scheduled|state-change|rebalance|
                                 capacity-reservation-interruption]
                                 [--deadline 120s] [--json]
        preflight                where does a planned GPU fleet fit: quotas, offerings, Spot scores, prices
                                 per region, ranked   --plan plan.yaml [--regions a,b,c] [--json]
                                 [--region HOME] [--cluster NAME | --kubeconfig [--context C]]
                                 [--timeout 20s] [--simulate]
        cost-report              GPU cost report of a real cluster into a local directory
                                 --cluster NAME --out DIR [--window 24h|last-day|mtd|START/END]
                                 [--region R] [--kubeconfig [--context C]] [--allocation-rule R]
                                 [--team-label L] [--json]
        budgets render           native Karpenter disruption.budgets (UTC cron) for a policy, and the
                                 dates DST shifts them   --policy FILE [--at ISO-8601] [--json]
        budgets apply            reconcile NodePool budgets and workload replicas for now (or --at)
                                 --policy FILE [--at 2026-03-29T02:30:00+02:00] [--dry-run] [--json]
                                 [--kubeconfig [--context C] | --cluster NAME [--region R]]
        budgets rbac             RoleBindings of the schedule's write role for the namespaces a
                                 policy names   --policy FILE [--group gpufleet-schedule]
        bench NAME               benchmarks: drain [--real], drain-burst, cold [--function F], preflight,
                                 budgets, cost (each prints one JSON line last); the function runs in
                                 a child JVM confined to the CPU share of a Lambda memory size
                                 [--memory MB] (default: template.yaml's) [--unconfined]
        bench tune FUNCTION      time and cost per invocation across memory sizes, and the cheapest
                                 size meeting the targets   [--sizes 512,1024,...] [--runs N] [--warm-runs N]
        test                     (launcher) run the whole test suite as CI does
      """;

  public static void main(String[] argv) {
    System.setProperty("log4j2.configurationFile", "classpath:log4j2-cli.xml");
    System.exit(run(Arrays.asList(argv), System.out, System.err));
  }

  static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.isEmpty() || argv.get(0).equals("help") || argv.get(0).equals("--help")) {
      out.print(USAGE);
      return argv.isEmpty() ? 2 : 0;
    }
    List<String> rest = argv.subList(1, argv.size());
    try {
      return switch (argv.get(0)) {
        case "simulate" -> new SimulateCommand(out, err).run(rest);
        case "drain" -> new DrainCommand(out, err).run(rest);
        case "invoke" -> new InvokeCommand(out, err).run(rest);
        case "preflight" -> new PreflightCommand(out, err).run(rest);
        case "cost-report" -> new CostReportCommand(out, err).run(rest);
        case "bench" -> new BenchCommand(out, err).run(rest);
        case "budgets" -> new BudgetsCommand(out, err).run(rest);
        default -> {
          err.println("gpufleet: unknown command '" + argv.get(0) + "'");
          err.print(USAGE);
          yield 2;
        }
      };
    } catch (ConfigException e) {
      err.println("gpufleet: " + e.getMessage());
      return 2;
    } catch (Exception e) {
      err.println("gpufleet: " + argv.get(0) + " failed: " + e);
      return 1;
    }
  }

  /** The project root (set by the launcher), for events/ and built artifacts. */
  static Path home() {
    return Path.of(System.getProperty("gpufleet.home", "."));
  }
}

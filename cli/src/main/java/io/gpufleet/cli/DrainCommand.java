package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import io.gpufleet.drain.DrainReporting;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DryRunReport;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.scenario.SyntheticEvents;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpufleet drain}: the same drain the Lambda runs, from a laptop against a real cluster, or
 * a read-only preview with {@code --dry-run}. Drain settings come from the same DRAIN_* variables.
 */
@Command(
    name = "drain",
    description = {
      "Drain one node of a real cluster now, or show what a drain would do (--dry-run).",
      "The Lambda's code and DRAIN_* settings; AWS credentials from the default chain. The dry run"
          + " only reads.",
      "Exit codes: 0 drained (or cordoned), 2 bad flag, 3 partial drain or node not found, 1 other"
          + " failure."
    })
final class DrainCommand implements Callable<Integer> {
  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  @Option(
      names = "--instance",
      paramLabel = "ID",
      required = true,
      description = "EC2 instance id of the node (i-0123456789abcdef0).")
  String instance;

  @Mixin ClusterTarget target = new ClusterTarget();

  @Option(
      names = "--kind",
      paramLabel = "KIND",
      defaultValue = "spot-interruption",
      description =
          "Event kind to act as: spot-interruption (default, 120 s), health-scheduled,"
              + " state-change, rebalance, capacity-reservation-interruption.")
  String kind;

  @Option(
      names = "--deadline",
      paramLabel = "DURATION",
      description =
          "Time left before the instance goes, for health-scheduled and state-change (120, 120s,"
              + " 2m; at most 1h; default 120s).")
  String deadline;

  @Option(
      names = "--dry-run",
      description = "Show what the drain would do pod by pod; change nothing.")
  boolean dryRun;

  @Option(names = "--json", description = "Print the outcome record as JSON.")
  boolean json;

  DrainCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    String clusterName = target.requireCluster(spec);
    if (!instance.matches("i-[0-9a-f]{8,17}")) {
      throw Cli.bad(
          spec, "--instance '" + instance + "' is not an EC2 instance id (i-0123456789abcdef0)");
    }
    DrainKind kind =
        DrainKind.byLabel(this.kind)
            .orElseThrow(
                () ->
                    Cli.bad(
                        spec,
                        "--kind must be one of "
                            + DrainKind.labels()
                            + " except capacity-block-expiring (it names a reservation)"));
    if (kind == DrainKind.CAPACITY_BLOCK_EXPIRING) {
      throw Cli.bad(
          spec,
          "--kind capacity-block-expiring names a Capacity Block, not an instance: replay"
              + " the block's warning with gpufleet invoke interruption-drain FILE");
    }
    Duration deadline =
        Cli.duration(
            spec, "--deadline", this.deadline, Duration.ofSeconds(120), Duration.ofHours(1));
    target.checkContext(spec, target.kubeconfig);
    var env = new HashMap<>(System.getenv());
    env.put("CLUSTER_NAME", clusterName);
    DrainSettings settings = DrainSettings.from(new Settings(env));

    try (KubernetesClient client = target.connect("drain", target.kubeconfig, clusterName)) {
      var service = DrainWiring.service(client, DrainWiring.Parts.of(settings));
      if (dryRun) {
        DryRunReport report = service.dryRun(instance);
        if (json) {
          out.println(Json.writePretty(report));
        } else {
          printDryRun(out, report);
        }
        return report.found() ? 0 : 3;
      }
      Instant now = Instant.now();
      var decoded =
          new EventDecoder()
              .decodeString(SyntheticEvents.manualDrain(kind, instance, now, deadline));
      if (!(decoded instanceof DecodeResult.Decoded d)) {
        throw new IllegalStateException("internal: synthetic event did not decode: " + decoded);
      }
      Instant hardStop =
          now.plus(
              deadline.compareTo(Duration.ofSeconds(130)) > 0 ? deadline : Duration.ofSeconds(130));
      err.printf(
          "draining %s in cluster %s (%s, deadline %s)...%n",
          instance, clusterName, kind, deadline);
      var outcomes = service.handle(d.event(), hardStop);
      if (json) {
        out.println(Json.writePretty(outcomes));
      } else {
        outcomes.forEach(o -> out.println(DrainReporting.summary(o)));
      }
      return outcomes.stream()
              .allMatch(
                  o ->
                      o.status() == DrainOutcome.Status.DRAINED
                          || o.status() == DrainOutcome.Status.CORDONED)
          ? 0
          : 3;
    }
  }

  static void printDryRun(PrintStream out, DryRunReport r) {
    if (!r.found()) {
      out.println(r.message());
      return;
    }
    out.println(
        "Dry run for node "
            + r.node()
            + " (instance "
            + r.instanceId()
            + ", cluster "
            + r.cluster()
            + "): "
            + r.message());
    var table = new Table("POD", "WOULD", "WHY");
    r.wouldEvict().forEach(p -> table.add(p, "evict", "-"));
    r.wouldWaitOrBlock()
        .forEach(
            p ->
                table.add(
                    p.pod(),
                    p.status() == io.gpufleet.drain.model.PodReport.Status.CONFIG_ERROR
                        ? "fail"
                        : "wait/block",
                    p.reason()));
    r.wouldSkip().forEach(p -> table.add(p.pod(), "skip", p.reason()));
    r.alreadyTerminating().forEach(p -> table.add(p, "wait", "already terminating"));
    out.print(table.render());
  }
}

package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.pricing.api.OnDemandPricing;
import io.gpufleet.core.store.DirectoryBlobStore;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporting;
import io.gpufleet.cost.CostSettings;
import io.gpufleet.cost.aws.Ec2InstanceAdapter;
import io.gpufleet.cost.aws.Ec2SpotPriceHistoryAdapter;
import io.gpufleet.cost.k8s.CostClusterAdapter;
import io.gpufleet.cost.model.CostOutcome;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpufleet cost-report}: the same report the Lambda writes, from a laptop, into a local
 * directory ({@code DIR/reports/<cluster>/<window>/cost.*}); the inventory snapshot and the price
 * cache are kept in DIR too, so repeated runs carry over like the function's. COST_* and PRICING_*
 * variables apply as in the function.
 */
@Command(
    name = "cost-report",
    description = {
      "GPU cost report of a real cluster into a local directory.",
      "The Lambda's code: DIR/reports/<cluster>/<window>/cost.*, with the inventory snapshot and"
          + " price cache kept in DIR; COST_* and PRICING_* variables apply as in the function.",
      "Exit codes: 0 reported, 2 bad flag or not reported, 1 other failure."
    })
final class CostReportCommand implements Callable<Integer> {
  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  @picocli.CommandLine.Mixin ClusterTarget target = new ClusterTarget();

  @Option(
      names = "--out",
      paramLabel = "DIR",
      required = true,
      description = "Directory for the report, inventory snapshot and price cache.")
  Path outDir;

  @Option(
      names = "--window",
      paramLabel = "W",
      description = "24h (default), last-day, mtd, or START/END (ISO-8601).")
  String window;

  @Option(
      names = "--allocation-rule",
      paramLabel = "R",
      description = "How shared GPU cost is split (COST_ALLOCATION_RULE).")
  String allocationRule;

  @Option(
      names = "--team-label",
      paramLabel = "L",
      description = "Pod label naming the team (COST_TEAM_LABEL).")
  String teamLabel;

  @Option(names = "--json", description = "Print the outcome record as JSON.")
  boolean json;

  CostReportCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    String clusterName = target.requireCluster(spec);
    Path dir = outDir;
    target.checkContext(spec, target.kubeconfig);
    var env = new HashMap<>(System.getenv());
    env.put("CLUSTER_NAME", clusterName);
    Optional.ofNullable(window).ifPresent(w -> env.put("COST_WINDOW", w));
    env.putIfAbsent("COST_WINDOW", "24h");
    Optional.ofNullable(allocationRule).ifPresent(r -> env.put("COST_ALLOCATION_RULE", r));
    Optional.ofNullable(teamLabel).ifPresent(l -> env.put("COST_TEAM_LABEL", l));
    var settings = new Settings(env);
    CostSettings cost = CostSettings.from(settings);
    // validate the window before touching anything
    io.gpufleet.cost.WindowSpec.resolve(cost.defaultWindow(), Clock.systemUTC());
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new ConfigException("cost-report: --out " + dir + " is not a directory");
    }
    // the report prices with EC2 and the Pricing API even when the kubeconfig reaches the cluster
    String region = target.awsRegion("cost-report");
    var aws = target.aws("cost-report");
    var store = new DirectoryBlobStore(dir);
    Clock clock = Clock.systemUTC();
    try (KubernetesClient kube =
        target.kubeconfig
            ? KubeClients.fromKubeconfig(Optional.ofNullable(target.context))
            : KubeClients.forEks(aws, clusterName, clock)) {
      Ec2Query ec2 = Ec2Query.from(aws);
      var service =
          new CostReportService(
              cost,
              region,
              new CostClusterAdapter(kube, cost.teamLabel()),
              new Ec2InstanceAdapter(ec2),
              new Ec2SpotPriceHistoryAdapter(ec2),
              OnDemandPricing.create(aws, settings, Optional.of(store), clock),
              store,
              CostReporting.reporter(MetricsPort.NONE, EventPublisherPort.NONE, NotifierPort.NONE),
              clock);
      var outcome =
          service.run(
              new CostReportService.Request(cost.defaultWindow(), null, false),
              m -> err.println("cost-report: " + m));
      print(outcome, json);
      return outcome.status() == CostOutcome.Status.REPORTED ? 0 : 2;
    }
  }

  private void print(CostOutcome o, boolean json) {
    if (json) {
      out.println(io.gpufleet.core.json.Json.writePretty(o));
      return;
    }
    out.println(CostSummary.render(o));
  }
}

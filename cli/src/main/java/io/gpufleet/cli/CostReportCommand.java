package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.EventPublisher;
import io.gpufleet.core.outcome.MetricsSink;
import io.gpufleet.core.outcome.Notifier;
import io.gpufleet.core.pricing.OnDemandPricing;
import io.gpufleet.core.store.DirectoryBlobStore;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporter;
import io.gpufleet.cost.CostSettings;
import io.gpufleet.cost.aws.Ec2InstanceReader;
import io.gpufleet.cost.aws.Ec2SpotPriceHistory;
import io.gpufleet.cost.k8s.FabricClusterReader;
import io.gpufleet.cost.model.CostOutcome;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.eks.EksClient;

/**
 * {@code gpufleet cost-report}: the same report the Lambda writes, from a laptop, into a local
 * directory ({@code DIR/reports/<cluster>/<window>/cost.*}); the inventory snapshot and the price
 * cache are kept in DIR too, so repeated runs carry over like the function's. COST_* and PRICING_*
 * variables apply as in the function.
 */
final class CostReportCommand {
  private final PrintStream out;
  private final PrintStream err;

  CostReportCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  int run(List<String> argv) throws Exception {
    var args =
        Args.parse(
            "cost-report",
            argv,
            Set.of(
                "cluster", "window", "out", "region", "context", "allocation-rule", "team-label"),
            Set.of("kubeconfig", "json"));
    String clusterName = args.require("cluster");
    Path dir = Path.of(args.require("out"));
    var env = new HashMap<>(System.getenv());
    env.put("CLUSTER_NAME", clusterName);
    args.get("window").ifPresent(w -> env.put("COST_WINDOW", w));
    env.putIfAbsent("COST_WINDOW", "24h");
    args.get("allocation-rule").ifPresent(r -> env.put("COST_ALLOCATION_RULE", r));
    args.get("team-label").ifPresent(l -> env.put("COST_TEAM_LABEL", l));
    var settings = new Settings(env);
    CostSettings cost = CostSettings.from(settings);
    // validate the window before touching anything
    io.gpufleet.cost.WindowSpec.resolve(cost.defaultWindow(), Clock.systemUTC());
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new ConfigException("cost-report: --out " + dir + " is not a directory");
    }
    String region =
        args.get("region")
            .or(() -> Optional.ofNullable(System.getenv("AWS_REGION")))
            .or(() -> Optional.ofNullable(System.getenv("AWS_DEFAULT_REGION")))
            .orElseThrow(
                () -> new ConfigException("cost-report: --region is required (or AWS_REGION)"));
    if (args.get("context").isPresent() && !args.flag("kubeconfig")) {
      throw new ConfigException("cost-report: --context goes with --kubeconfig");
    }
    var aws =
        new AwsClients(
            Region.of(region), DefaultCredentialsProvider.builder().build(), Optional.empty());
    var store = new DirectoryBlobStore(dir);
    Clock clock = Clock.systemUTC();
    try (KubernetesClient kube =
            args.flag("kubeconfig")
                ? KubeClients.fromKubeconfig(args.get("context"))
                : KubeClients.forEks(
                    aws.build(EksClient.builder()),
                    clusterName,
                    aws.region(),
                    aws.credentials(),
                    clock);
        Ec2Client ec2 = aws.build(Ec2Client.builder())) {
      var service =
          new CostReportService(
              cost,
              region,
              new FabricClusterReader(kube, cost.teamLabel()),
              new Ec2InstanceReader(ec2),
              new Ec2SpotPriceHistory(ec2),
              OnDemandPricing.create(aws, settings, Optional.of(store), clock),
              store,
              new CostReporter(MetricsSink.NONE, EventPublisher.NONE, Notifier.NONE),
              clock);
      var outcome =
          service.run(
              new CostReportService.Request(cost.defaultWindow(), null, false),
              m -> err.println("cost-report: " + m));
      print(outcome, args.flag("json"));
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

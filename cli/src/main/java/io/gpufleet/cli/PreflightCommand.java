package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.catalog.Regions;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.preflight.PlanParser;
import io.gpufleet.preflight.PreflightService;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.aws.RegionalClients;
import io.gpufleet.preflight.k8s.NodePoolAdapter;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.wiring.PreflightWiring;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * {@code gpufleet preflight --plan plan.yaml --regions a,b,c}: where does the plan fit, and what
 * stops it elsewhere. Progress per region goes to stderr, the ranked table (or {@code --json}) to
 * stdout. {@code --simulate} runs against the simulated account instead of AWS. Exit 0 when at
 * least one region is GO or GO_WITH_WARNINGS, 1 when none is, 2 for a bad plan or flag.
 */
@Command(
    name = "preflight",
    description = {
      "Where a planned GPU fleet fits (--plan), or a review of NodePool files (--nodepools).",
      "--plan: quotas, offerings, Spot placement scores and prices per region, ranked; progress on"
          + " stderr, the table (or --json) on stdout. --nodepools: NodePool manifests without a"
          + " cluster, their limits summed per quota bucket and DRA support checked.",
      "Exit codes: 0 a region is GO or GO_WITH_WARNINGS (--nodepools: no NO_GO finding), 1 none"
          + " is (a NO_GO finding), 2 bad plan, file or flag."
    })
final class PreflightCommand implements Callable<Integer> {
  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  @Option(names = "--plan", paramLabel = "FILE", description = "The plan (YAML or JSON).")
  Path plan;

  @Option(
      names = "--regions",
      paramLabel = "R",
      split = ",",
      description = "Regions to check instead of the plan's (a,b,c).")
  List<String> regions = new ArrayList<>();

  @Option(
      names = "--region",
      paramLabel = "HOME",
      description =
          "Home region: Pricing, EKS, and Service Quotas for --nodepools (default: AWS_REGION,"
              + " AWS_DEFAULT_REGION, else the plan's first region).")
  String region;

  @Option(
      names = "--cluster",
      paramLabel = "NAME",
      description = "Also analyse this EKS cluster's NodePools.")
  String cluster;

  @Option(
      names = "--kubeconfig",
      description = "Also analyse the NodePools of the kubeconfig's cluster.")
  boolean kubeconfig;

  @Option(
      names = "--context",
      paramLabel = "C",
      description = "kubeconfig context (with --kubeconfig).")
  String context;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      description = "Per-region read timeout (20, 20s, 1m; at most 10m; default 20s).")
  String timeout;

  @Option(
      names = "--simulate",
      description = "Against the simulated account and demo cluster (no credentials).")
  boolean simulate;

  @Option(names = "--json", description = "Print the report as JSON.")
  boolean json;

  @Option(
      names = "--nodepools",
      paramLabel = "FILE",
      split = ",",
      description = "Review these NodePool manifests offline (FILE[,FILE]; more FILEs may follow).")
  List<String> nodePools = new ArrayList<>();

  @Parameters(paramLabel = "FILE", description = "More NodePool manifests (with --nodepools).")
  List<String> moreNodePools = new ArrayList<>();

  @Option(
      names = "--quota",
      paramLabel = "BUCKET/CAPACITY=VCPU",
      description =
          "--nodepools: quotas to compare with, no AWS call (p/spot=384,g/on-demand=192).")
  String quota;

  @Option(
      names = "--karpenter-version",
      paramLabel = "V",
      description = "--nodepools: Karpenter version (default: read from the manifests).")
  String karpenterVersion;

  @Option(
      names = "--karpenter-setting",
      paramLabel = "NAME=true|false",
      description =
          "--nodepools: Karpenter settings ignoreDRARequests, enableDRA (a=true,b=false).")
  String karpenterSetting;

  @Option(
      names = "--kubernetes-version",
      paramLabel = "V",
      description = "--nodepools: Kubernetes version of the cluster.")
  String kubernetesVersion;

  @Option(
      names = "--cluster-autoscaler-version",
      paramLabel = "V",
      description = "--nodepools: Cluster Autoscaler version, if it provisions.")
  String clusterAutoscalerVersion;

  @Option(
      names = "--cluster-autoscaler-dra",
      paramLabel = "true|false",
      arity = "1",
      description = "--nodepools: whether Cluster Autoscaler runs with DRA enabled.")
  Boolean clusterAutoscalerDra;

  PreflightCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    if (!nodePools.isEmpty()) {
      if (plan != null) {
        throw Cli.bad(
            spec, "--nodepools reviews NodePool files on their own; run --plan separately");
      }
      return new PoolFilesReview(out, err).run(this);
    }
    if (plan == null) {
      throw Cli.bad(spec, "--plan FILE is required (or --nodepools FILE to review NodePools)");
    }
    if (!moreNodePools.isEmpty()) {
      throw Cli.bad(
          spec,
          "unexpected argument '" + moreNodePools.get(0) + "' (files follow only --nodepools)");
    }
    if (context != null && !kubeconfig) {
      throw Cli.bad(spec, "--context goes with --kubeconfig");
    }
    var regions = regions(this.regions);
    Duration regionTimeout =
        Cli.duration(spec, "--timeout", timeout, Duration.ofSeconds(20), Duration.ofMinutes(10));
    Path planFile = plan;
    String text;
    try {
      text = Files.readString(planFile);
    } catch (NoSuchFileException e) {
      throw new ConfigException("preflight: plan file " + planFile + " does not exist");
    }
    Plan plan = PlanParser.parse(text, planFile.toString());
    if (!regions.isEmpty()) {
      plan = plan.withRegions(regions);
    }
    var settings = PreflightSettings.defaults();
    if (timeout != null) {
      settings = settings.withRegionTimeout(regionTimeout);
    }
    PreflightReport report;
    if (simulate) {
      report = simulated(plan, settings, json);
    } else {
      report = live(plan, settings, json);
    }
    if (json) {
      out.println(Json.writePretty(report));
    } else {
      print(report);
    }
    return report.best().isPresent() ? 0 : 1;
  }

  List<String> regions(List<String> flag) {
    var out = new ArrayList<String>();
    for (String r : flag) {
      String region = r.trim();
      if (region.isEmpty()) {
        continue;
      }
      if (!Regions.known(region)) {
        throw Cli.bad(spec, "--regions names unknown region '" + region + "'");
      }
      out.add(region);
    }
    return out;
  }

  private PreflightReport live(Plan plan, PreflightSettings settings, boolean json)
      throws Exception {
    String home =
        Optional.ofNullable(region)
            .or(() -> Optional.ofNullable(System.getenv("AWS_REGION")))
            .or(() -> Optional.ofNullable(System.getenv("AWS_DEFAULT_REGION")))
            .orElse(plan.regions().isEmpty() ? "us-east-1" : plan.regions().get(0));
    var credentials = DefaultCredentialsProvider.builder().build();
    try (var clients = new RegionalClients(credentials, Optional.empty())) {
      var prices =
          PreflightWiring.pricing(
              new AwsClients(Region.of(home), credentials, Optional.empty()),
              Settings.fromEnvironment(),
              Optional.empty(),
              Clock.systemUTC());
      var service = PreflightWiring.service(clients, home, prices, settings, Clock.systemUTC());
      List<NodePoolSpec> pools = List.of();
      if (kubeconfig || cluster != null) {
        try (KubernetesClient kube = kube(home, credentials)) {
          pools = new NodePoolAdapter(kube).nodePools();
        }
      }
      return service.run(plan, pools, pools.isEmpty() ? null : home, "cli", progress(json));
    }
  }

  private KubernetesClient kube(
      String region, software.amazon.awssdk.auth.credentials.AwsCredentialsProvider credentials) {
    if (kubeconfig) {
      return KubeClients.fromKubeconfig(Optional.ofNullable(context));
    }
    var aws = new AwsClients(Region.of(region), credentials, Optional.empty());
    return KubeClients.forEks(aws, cluster, Clock.systemUTC());
  }

  /** The plan against the simulated account and the demo cluster's NodePools (no credentials). */
  PreflightReport simulated(Plan plan, PreflightSettings settings, boolean json) {
    var regions = plan.allRegions() ? settings.candidateRegions() : plan.regions();
    try (var stub = AwsStubServer.start();
        var cluster = SimCluster.start(SimTime.realTime());
        var kube = cluster.newClient();
        var clients =
            new RegionalClients(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSIM", "sim")),
                Optional.of(stub.endpoint()))) {
      new SimCapacityAccount(stub).install().seedDemo(regions).installPricing(regions);
      DemoFleet.populateNodePools(cluster);
      var service =
          PreflightWiring.service(
              clients, "us-east-1", simulatedPrices(stub), settings, Clock.systemUTC());
      var pools = new NodePoolAdapter(kube).nodePools();
      return service.run(plan, pools, "us-east-1", "cli --simulate", progress(json));
    }
  }

  /** The real On-Demand price chain, its Pricing API calls answered by the simulated account. */
  static OnDemandPrices simulatedPrices(AwsStubServer stub) {
    return PreflightWiring.pricing(
        new AwsClients(
            Region.US_EAST_1,
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSIM", "sim")),
            Optional.of(stub.endpoint())),
        new Settings(java.util.Map.of()),
        Optional.empty(),
        Clock.systemUTC());
  }

  private PreflightService.Progress progress(boolean json) {
    return new PreflightService.Progress() {
      @Override
      public void started(String region) {
        err.printf("  %-15s reading quotas, usage, offerings, prices...%n", region);
      }

      @Override
      public void read(String region, long elapsedMs, Optional<String> problem) {
        err.printf(
            "  %-15s %s (%d ms)%n",
            region, problem.map(p -> "UNKNOWN: " + p).orElse("done"), elapsedMs);
      }
    };
  }

  void print(PreflightReport r) {
    var table =
        new Table(
            "#",
            "REGION",
            "VERDICT",
            "SPOT SCORE",
            "COST/H",
            "QUOTAS (need / headroom)",
            "FIRST REASON");
    for (RegionResult x : r.regions()) {
      var quotas = new ArrayList<String>();
      x.quotas()
          .forEach(
              q ->
                  quotas.add(
                      q.key().usageClass()
                          + " "
                          + Math.round(q.need())
                          + "/"
                          + (q.headroom() == null ? "?" : Math.round(q.headroom()))));
      String reason =
          !x.blockers().isEmpty()
              ? x.blockers().get(0)
              : !x.warnings().isEmpty() ? x.warnings().get(0) : "";
      table.add(
          x.rank(),
          x.region(),
          x.verdict(),
          x.spotScore() == null ? "?" : x.spotScore() + "/10",
          x.hourlyCost() == null
              ? "?"
              : "$"
                  + x.hourlyCost().setScale(2, java.math.RoundingMode.HALF_UP).toPlainString()
                  + (x.costComplete() ? "" : "+"),
          String.join(" ", quotas),
          reason.length() > 90 ? reason.substring(0, 89) + "…" : reason);
    }
    out.println();
    out.println(
        "Preflight of plan '"
            + r.plan()
            + "' ("
            + r.regions().size()
            + " regions, "
            + r.elapsedMs()
            + " ms)");
    out.print(table.render());
    out.println(
        "(COST/H: + means some prices were unknown: Pricing API slow or throttled, or no price)");
    for (RegionResult x : r.regions()) {
      if (x.blockers().isEmpty() && x.warnings().isEmpty()) {
        continue;
      }
      out.println();
      out.println(x.region() + " " + x.verdict() + ":");
      x.blockers().forEach(b -> out.println("  - " + b));
      x.warnings().forEach(w -> out.println("  ! " + w));
    }
    if (!r.nodePools().isEmpty()) {
      out.println();
      out.println("NodePools:");
      r.nodePools().forEach(p -> out.println("  " + p.nodePool() + ": " + p.message()));
    }
    r.notes().forEach(n -> out.println("note: " + n));
    out.println();
    out.println(
        r.best()
            .map(b -> "Best region: " + b.region() + " (" + b.verdict() + ")")
            .orElse("No region fits the plan."));
  }
}

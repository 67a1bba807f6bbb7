package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.pricing.api.OnDemandPricing;
import io.gpufleet.core.store.DirectoryBlobStore;
import io.gpufleet.cost.CostClusterPort;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporting;
import io.gpufleet.cost.CostSettings;
import io.gpufleet.cost.InstancePort;
import io.gpufleet.cost.SpotPriceHistoryPort;
import io.gpufleet.cost.aws.CostExplorerCommitmentAdapter;
import io.gpufleet.cost.aws.PrometheusUtilisationAdapter;
import io.gpufleet.cost.focus.FocusOutput;
import io.gpufleet.cost.k8s.CostClusterAdapter;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.PodRecord;
import io.gpufleet.cost.model.SpotPricePoint;
import io.gpufleet.scenario.SavingsSimulation;
import io.gpufleet.scenario.SimGpuExtras;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.PricingStub;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * The cost report part of {@code gpufleet simulate}: a last-24-hours report of the demo fleet in
 * the simulated account. The cluster is the simulated API server; EC2 instances (launched hours to
 * days ago, one node with no instance) and Spot price history are simulated at the port; On-Demand
 * prices go through the real Pricing API adapter to an in-process stub answering in the real
 * PriceList shape. The inventory snapshot of "earlier runs" holds a node that lived three hours
 * yesterday and is gone from EC2 now. Nothing leaves the machine; no credentials.
 */
final class CostSimulation {
  static final String REGION = "us-east-1";

  /** The demo node whose instance EC2 does not know (a node without an EC2 match). */
  static final String UNMATCHED = "gpu-worker-custom-8";

  /** The report of the last simulated run (tests). */
  static final java.util.concurrent.atomic.AtomicReference<io.gpufleet.cost.model.CostReport> LAST =
      new java.util.concurrent.atomic.AtomicReference<>();

  private CostSimulation() {}

  /** Runs the report; prints progress on err and where cost.html is on out (or err with json). */
  static CostOutcome run(PrintStream out, PrintStream err, boolean json) throws Exception {
    Path dir = Files.createTempDirectory("gpufleet-simulate-cost-");
    Clock clock = Clock.systemUTC();
    Instant now = clock.instant();
    try (var cluster = SimCluster.start(SimTime.realTime());
        KubernetesClient client = cluster.newClient();
        var research = SimCluster.start(SimTime.realTime());
        KubernetesClient researchClient = research.newClient();
        var stub = AwsStubServer.start()) {
      DemoFleet.populate(cluster);
      // one stack, two clusters (as the drain's simulation): the research cluster is reported too
      SimulateCommand.DrainSim.populateSecondCluster(research);
      SimGpuExtras.populate(cluster);
      SimGpuExtras.costExplorer(stub, REGION);
      var prometheus = SimGpuExtras.prometheus();
      var pricing =
          new PricingStub()
              .withDecoys()
              .listPrices(REGION, "p5.48xlarge", "g6e.12xlarge", "g5.2xlarge", "g5.12xlarge");
      stub.on(PricingStub.OPERATION, pricing::answer);
      var aws =
          new AwsClients(
              Region.US_EAST_1,
              StaticCredentialsProvider.create(AwsBasicCredentials.create("sim", "sim")),
              Optional.of(stub.endpoint()));
      var store = new DirectoryBlobStore(dir);
      store.put(
          CostReportService.snapshotKey(DemoFleet.CLUSTER),
          Json.MAPPER.writeValueAsBytes(earlierSnapshot(now)),
          "application/json");
      var settings = CostSettings.defaults(DemoFleet.CLUSTER);
      var metrics = new Recorders.RecordingMetrics();
      var utilisation =
          new PrometheusUtilisationAdapter(
              SimGpuExtras.url(prometheus),
              java.net.http.HttpClient.newHttpClient(),
              Optional.empty());
      var service =
          new CostReportService(
              settings,
              REGION,
              List.of(
                  new CostReportService.ClusterTarget(
                      DemoFleet.CLUSTER,
                      new Backdated(new CostClusterAdapter(client, settings.teamLabel()), now),
                      utilisation),
                  new CostReportService.ClusterTarget(
                      SimulateCommand.DrainSim.SECOND_CLUSTER,
                      new Backdated(
                          new CostClusterAdapter(researchClient, settings.teamLabel()), now),
                      utilisation)),
              new SimEc2(now),
              new SimSpot(now),
              OnDemandPricing.create(aws, new Settings(Map.of()), Optional.of(store), clock),
              store,
              CostReporting.reporter(
                  metrics, new Recorders.RecordingPublisher(), new Recorders.RecordingNotifier()),
              clock,
              new CostExplorerCommitmentAdapter(AwsJson.from(aws, AwsJson.COST_EXPLORER)));
      PrintStream where = json ? err : out;
      if (!json) {
        out.println();
        out.println("Cost report over the simulated cluster (last 24 h):");
      }
      CostOutcome o;
      List<CostOutcome> days;
      long ceCalls;
      long pricingCalls;
      int scheduleRuns;
      try {
        o =
            service.run(
                new CostReportService.Request("24h", null, false),
                m -> err.println("  cost: " + m));
        LAST.set(service.lastReport());
        // what the 24 h report asked the stub (the FOCUS days below ask it again)
        ceCalls =
            stub.calls().stream()
                .filter(c -> c.operation().startsWith("AWSInsightsIndexService."))
                .count();
        pricingCalls = stub.calls(PricingStub.OPERATION).size();
        days = focusDays(service, now, err);
        Instant today = now.truncatedTo(ChronoUnit.DAYS);
        scheduleRuns =
            SavingsSimulation.record(store, today.minus(Duration.ofDays(FOCUS_DAYS)), today);
      } finally {
        prometheus.stop(0);
      }
      DIR.set(dir);
      if (!json) {
        out.print(CostSummary.render(o));
        out.print(CostSummary.gpu(LAST.get()));
        out.println("Cost Explorer calls to the stub: " + ceCalls);
        out.println("Pricing API calls to the stub: " + pricingCalls);
      } else {
        where.println("cost.html written to " + o.outputs().get("html"));
      }
      printFocus(where, dir, days);
      printSavings(where, dir, scheduleRuns);
      return o;
    }
  }

  /** The directory of the last simulated run (tests): reports/, focus/, inventory/. */
  static final java.util.concurrent.atomic.AtomicReference<Path> DIR =
      new java.util.concurrent.atomic.AtomicReference<>();

  /** Days of FOCUS data the simulation writes (whole UTC days before today, both clusters). */
  static final int FOCUS_DAYS = 3;

  /** The last FOCUS_DAYS whole UTC days, reported with FOCUS on (the simulated account's id). */
  static List<CostOutcome> focusDays(CostReportService service, Instant now, PrintStream err) {
    service.withFocus(FocusOutput.on(SimCapacityAccount.ACCOUNT));
    Instant today = now.truncatedTo(ChronoUnit.DAYS);
    var out = new ArrayList<CostOutcome>();
    for (int d = FOCUS_DAYS; d >= 1; d--) {
      Instant start = today.minus(Duration.ofDays(d));
      String window = start + "/" + start.plus(Duration.ofDays(1));
      out.add(
          service.run(
              new CostReportService.Request(window, null, false),
              m -> err.println("  cost " + window + ": " + m)));
    }
    return out;
  }

  static void printFocus(PrintStream out, Path dir, List<CostOutcome> days) throws Exception {
    long files;
    try (var walk = Files.walk(dir.resolve("focus"))) {
      files = walk.filter(f -> f.toString().endsWith(".parquet")).count();
    }
    out.println();
    out.printf(
        "FOCUS 1.2 data: %d days x 2 clusters, %d Parquet files under %s%n",
        days.size(), files, dir.resolve("focus"));
    String name = "cost-by-team-month";
    out.println(
        FocusQueries.title(name) + "  (./gpufleet cost query " + name + " --from " + dir + "):");
    out.print(FocusQueries.table(FocusQueries.run(dir, name)));
  }

  static void printSavings(PrintStream out, Path dir, int runs) throws Exception {
    String name = FocusQueries.SCHEDULE_SAVINGS;
    out.println();
    out.printf(
        "Disruption schedule over the same days: %d hourly runs, hold records under %s%n",
        runs, dir.resolve("schedule"));
    out.println(
        FocusQueries.title(name) + "  (./gpufleet cost query " + name + " --from " + dir + "):");
    out.print(FocusQueries.table(FocusQueries.run(dir, name)));
  }

  /** The research cluster's instances (SimulateCommand.DrainSim.populateSecondCluster). */
  record ResearchInstance(
      String id,
      String node,
      String type,
      String zone,
      Lifecycle lifecycle,
      String nodeGroup,
      int hoursAgo) {}

  static final List<ResearchInstance> RESEARCH =
      List.of(
          new ResearchInstance(
              SimulateCommand.DrainSim.SECOND_INSTANCE,
              "ip-10-2-5-17.ec2.internal",
              "p5.48xlarge",
              "us-east-1c",
              Lifecycle.ON_DEMAND,
              "ng-research-cb",
              // over 24 h: whatever the hour, the research cluster ran during the last whole day
              // (the FOCUS days end at today's midnight; 18 h left them empty after 18:00 UTC)
              42),
          new ResearchInstance(
              SimulateCommand.DrainSim.SECOND_SPOT_INSTANCE,
              "ip-10-2-9-40.ec2.internal",
              "g6e.12xlarge",
              "us-east-1b",
              Lifecycle.SPOT,
              "ng-research-spot",
              7));

  /** Instance launch times: hours to days ago, in a fixed pattern. */
  static Instant launched(int index, Instant now) {
    int[] hoursAgo = {52, 30, 20, 9, 75, 6, 40, 14};
    return now.minus(Duration.ofHours(hoursAgo[index % hoursAgo.length]));
  }

  /** EC2 as the simulated account has it: every demo node but one. */
  static final class SimEc2 implements InstancePort {
    private final Instant now;

    SimEc2(Instant now) {
      this.now = now;
    }

    @Override
    public List<Ec2Instance> clusterInstances(String cluster, Collection<String> alsoIds) {
      var out = new ArrayList<Ec2Instance>();
      if (cluster.equals(SimulateCommand.DrainSim.SECOND_CLUSTER)) {
        for (var e : RESEARCH) {
          out.add(
              new Ec2Instance(
                  e.id(),
                  e.type(),
                  e.zone(),
                  e.lifecycle(),
                  now.minus(Duration.ofHours(e.hoursAgo())),
                  "running",
                  null,
                  null,
                  e.nodeGroup()));
        }
        return out;
      }
      for (int i = 0; i < DemoFleet.NODES.size(); i++) {
        var n = DemoFleet.NODES.get(i);
        if (n.name().equals(UNMATCHED)) {
          continue;
        }
        out.add(
            new Ec2Instance(
                n.instanceId(),
                n.instanceType(),
                n.zone(),
                "spot".equals(n.capacityType()) ? Lifecycle.SPOT : Lifecycle.ON_DEMAND,
                launched(i, now),
                "running",
                null,
                n.nodePool(),
                n.nodeGroup()));
      }
      for (var e : SimGpuExtras.NODES) {
        out.add(
            new Ec2Instance(
                e.instanceId(),
                e.type(),
                e.zone(),
                Lifecycle.fromLabel(e.capacityType()).orElse(Lifecycle.ON_DEMAND),
                now.minus(Duration.ofHours(e.hoursAgo())),
                "running",
                null,
                e.nodePool(),
                e.nodeGroup()));
      }
      return out;
    }
  }

  /** Spot prices per zone and type, changing twice over the last day. */
  static final class SimSpot implements SpotPriceHistoryPort {
    private final Instant now;

    SimSpot(Instant now) {
      this.now = now;
    }

    @Override
    public List<SpotPricePoint> history(Set<String> types, Instant start, Instant end) {
      Map<String, String> base =
          Map.of(
              "p5.48xlarge",
              "31.20",
              "g6e.12xlarge",
              "4.10",
              "g5.2xlarge",
              "0.48",
              "g5.12xlarge",
              "2.30");
      var out = new ArrayList<SpotPricePoint>();
      for (String type : types) {
        var price = new BigDecimal(base.getOrDefault(type, "1.00"));
        for (String zone : List.of("us-east-1a", "us-east-1b", "us-east-1c")) {
          BigDecimal z =
              price.multiply(
                  new BigDecimal(
                      zone.endsWith("a") ? "1.00" : zone.endsWith("b") ? "1.06" : "0.97"));
          out.add(new SpotPricePoint(zone, type, start.minus(Duration.ofHours(3)), z));
          out.add(
              new SpotPricePoint(
                  zone, type, now.minus(Duration.ofHours(16)), z.multiply(new BigDecimal("1.12"))));
          out.add(
              new SpotPricePoint(
                  zone, type, now.minus(Duration.ofHours(5)), z.multiply(new BigDecimal("0.93"))));
        }
      }
      return out;
    }
  }

  /**
   * The simulated API server creates every pod "now"; a real cluster's pods have been running for a
   * while. Pods start between their node's launch and a few hours ago.
   */
  static final class Backdated implements CostClusterPort {
    private final CostClusterPort inner;
    private final Instant now;

    Backdated(CostClusterPort inner, Instant now) {
      this.inner = inner;
      this.now = now;
    }

    /** Nodes were created when their instance launched, not when the simulator started. */
    @Override
    public List<ClusterNode> nodes() {
      var out = new ArrayList<ClusterNode>();
      for (ClusterNode n : inner.nodes()) {
        int i = indexOf(n.name());
        Instant created = i < 0 ? extraLaunch(n.name(), now, n.createdAt()) : launched(i, now);
        out.add(
            new ClusterNode(
                n.name(),
                n.providerId(),
                n.instanceId(),
                n.instanceType(),
                n.zone(),
                n.capacityTypeLabel(),
                n.nodePool(),
                n.nodeGroup(),
                created,
                n.accelerators(),
                n.acceleratorResource(),
                n.cpuMillis(),
                n.memoryBytes(),
                n.gpuResources(),
                n.gpuLabels()));
      }
      return out;
    }

    private static Instant extraLaunch(String name, Instant now, Instant fallback) {
      for (var r : RESEARCH) {
        if (r.node().equals(name)) {
          return now.minus(Duration.ofHours(r.hoursAgo()));
        }
      }
      for (var e : SimGpuExtras.NODES) {
        if (e.name().equals(name)) {
          return now.minus(Duration.ofHours(e.hoursAgo()));
        }
      }
      return fallback;
    }

    private static int indexOf(String name) {
      for (int i = 0; i < DemoFleet.NODES.size(); i++) {
        if (DemoFleet.NODES.get(i).name().equals(name)) {
          return i;
        }
      }
      return -1;
    }

    @Override
    public List<ClusterPod> pods() {
      var launch = new HashMap<String, Instant>();
      for (int i = 0; i < DemoFleet.NODES.size(); i++) {
        launch.put(DemoFleet.NODES.get(i).name(), launched(i, now));
      }
      for (var e : SimGpuExtras.NODES) {
        launch.put(e.name(), now.minus(Duration.ofHours(e.hoursAgo())));
      }
      var out = new ArrayList<ClusterPod>();
      for (ClusterPod p : inner.pods()) {
        Instant nodeStart = launch.getOrDefault(p.nodeName(), now.minus(Duration.ofHours(1)));
        Instant start =
            nodeStart.plus(Duration.ofMinutes(5 + Math.floorMod(p.name().hashCode(), 300)));
        if (start.isAfter(now)) {
          start = now.minus(Duration.ofMinutes(10));
        }
        out.add(
            new ClusterPod(
                p.namespace(),
                p.name(),
                p.uid(),
                p.nodeName(),
                p.team(),
                p.accelerators(),
                p.cpuMillis(),
                p.memoryBytes(),
                start,
                p.finishedAt()));
      }
      return out;
    }
  }

  /** What hourly snapshot runs saw earlier: a g6e node that lived three hours and is gone. */
  static InventorySnapshot earlierSnapshot(Instant now) {
    Instant start = now.truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(12));
    Instant lastSeen = start.plus(Duration.ofHours(3));
    var node =
        new NodeRecord(
            "i-0a1b2c3d4e5f60099",
            "ip-10-0-2-29.ec2.internal",
            "g6e.12xlarge",
            REGION,
            "us-east-1b",
            Lifecycle.ON_DEMAND,
            "gpu-inference",
            null,
            start,
            null,
            false,
            4,
            "nvidia.com/gpu",
            48_000,
            384L << 30,
            true,
            true,
            start,
            lastSeen);
    var pods = new ArrayList<PodRecord>();
    for (int i = 0; i < 2; i++) {
      pods.add(
          new PodRecord(
              "sim-burst-" + i,
              "inference",
              "vllm-burst-" + i,
              node.nodeName(),
              null,
              2,
              8000,
              64L << 30,
              start.plus(Duration.ofMinutes(4)),
              null,
              lastSeen));
    }
    return new InventorySnapshot(
        InventorySnapshot.VERSION, DemoFleet.CLUSTER, lastSeen, List.of(node), pods);
  }
}

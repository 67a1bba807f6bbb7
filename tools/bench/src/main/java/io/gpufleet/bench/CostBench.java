package io.gpufleet.bench;

import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.StaticPrice;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.pricing.OnDemandPriceChain;
import io.gpufleet.core.pricing.PricingApiPort;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.pricing.TokenBucket;
import io.gpufleet.core.pricing.api.OnDemandPricing;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.cost.CostClusterPort;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporting;
import io.gpufleet.cost.CostSettings;
import io.gpufleet.cost.InstancePort;
import io.gpufleet.cost.SpotPriceHistoryPort;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.SpotPricePoint;
import io.gpufleet.cost.model.Utilisation;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryType;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * {@code gpufleet bench cost}: a whole report run (inventory merge and snapshot, pricing, Spot
 * time-weighting, allocation, rollups, JSON + CSV + HTML) over N instances and M pods held in
 * memory, in a child JVM with {@code -Xmx512m}. The Pricing API is a stub ({@link PricingStub}: the
 * client's token bucket, 50 ms per call) behind the real price chain, and it counts its calls.
 * Baseline in the same run, over the same fleet, every pod: the naive way, joining each pod to its
 * node by a scan of the node list and asking the Pricing API per pod (calls counted by the stub;
 * their waiting on the stub's virtual clock).
 */
public final class CostBench {
  static final String HEAP = "-Xmx512m";
  static final long TARGET_MS = 5000;
  private final PrintStream err;

  public CostBench(PrintStream err) {
    this.err = err;
  }

  /**
   * Runs the report in a child JVM in the share, with the Lambda heap of the memory size capped at
   * 512 MiB (the target: the report fits in 512 MiB of heap), and returns its figures.
   */
  public Map<String, Object> run(int instances, int pods, Confinement share) throws Exception {
    var extra = new ArrayList<String>();
    String heap = share.share().jvmFlags().get(0);
    if (share.share().maxHeapKib() > 512 * 1024) {
      extra.add(HEAP);
      heap = HEAP;
    }
    share.announce(err, "cost");
    err.printf("bench cost: %d instances, %d pods in a child JVM (%s)...%n", instances, pods, heap);
    var r = new LinkedHashMap<String, Object>();
    try {
      r.putAll(
          share.runChild("cost", Map.of("instances", instances, "pods", pods), Map.of(), extra));
    } catch (IllegalStateException e) {
      r.put("bench", "cost");
      r.put("error", e.getMessage() + " (out of memory under " + heap + "?)");
      r.put("pass", false);
    }
    r.put("heap", heap);
    r.put("share", share.describe());
    return r;
  }

  static final String[] TYPES = {
    "p5.48xlarge", "p4d.24xlarge", "g6e.xlarge", "g6e.12xlarge", "g6e.48xlarge", "g6.12xlarge",
    "g5.xlarge", "g5.2xlarge", "g5.12xlarge", "g5.48xlarge", "g4dn.12xlarge", "m6i.xlarge"
  };
  static final String[] ZONES = {"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"};

  record Fleet(
      List<ClusterNode> nodes,
      List<Ec2Instance> instances,
      List<ClusterPod> pods,
      List<SpotPricePoint> spot,
      Utilisation utilisation,
      Commitments commitments) {}

  /** How a generated node shares its GPUs: a third of P nodes MIG, a quarter of G time-sliced. */
  static Map<String, Integer> sharing(int i, String type, int gpus, Map<String, String> labels) {
    if (gpus == 0) {
      return Map.of();
    }
    if (type.startsWith("p") && i % 10 == 1) {
      return Map.of(ClusterNode.DRA_GPU, gpus);
    }
    if (type.startsWith("p") && i % 3 == 0) {
      labels.put("nvidia.com/mig.strategy", "mixed");
      return Map.of(type.startsWith("p5") ? MIG_P5 : MIG_P4D, gpus * 2);
    }
    if (type.startsWith("g") && i % 4 == 0) {
      labels.put("nvidia.com/gpu.replicas", "4");
      labels.put("nvidia.com/gpu.sharing-strategy", "time-slicing");
      return Map.of("nvidia.com/gpu", gpus * 4);
    }
    return Map.of("nvidia.com/gpu", gpus);
  }

  static final String MIG_P5 = "nvidia.com/mig-3g.40gb";
  static final String MIG_P4D = "nvidia.com/mig-3g.20gb";

  public static Fleet fleet(int instances, int podCount, Instant now, long seed) {
    var random = new Random(seed);
    var nodes = new ArrayList<ClusterNode>(instances);
    var ec2 = new ArrayList<Ec2Instance>(instances);
    for (int i = 0; i < instances; i++) {
      String type = TYPES[random.nextInt(TYPES.length)];
      String zone = ZONES[random.nextInt(ZONES.length)];
      String id = String.format("i-0%016x", 0xc0000000L + i);
      boolean spot = random.nextInt(10) < 6;
      Instant launch = now.minus(Duration.ofMinutes(30 + random.nextInt(72 * 60)));
      var facts = InstanceCatalog.entry(type).orElseThrow();
      String name = "ip-10-" + (i / 250) + "-" + (i % 250) + ".ec2.internal";
      var labels = new java.util.HashMap<String, String>();
      var resources = sharing(i, type, facts.accelerators(), labels);
      nodes.add(
          new ClusterNode(
              name,
              "aws:///" + zone + "/" + id,
              id,
              type,
              zone,
              spot ? "spot" : "on-demand",
              "pool-" + (i % 20),
              null,
              launch,
              facts.accelerators(),
              facts.acceleratorResource().orElse(null),
              facts.vcpus() * 1000L,
              facts.memoryMib() << 20,
              resources,
              labels));
      Instant end =
          random.nextInt(20) == 0 ? now.minus(Duration.ofMinutes(random.nextInt(600))) : null;
      ec2.add(
          new Ec2Instance(
              id,
              type,
              zone,
              spot ? Lifecycle.SPOT : Lifecycle.ON_DEMAND,
              launch,
              end == null ? "running" : "terminated",
              end,
              "pool-" + (i % 20),
              null));
    }
    var podList = new ArrayList<ClusterPod>(podCount);
    var nodeUtil = new java.util.HashMap<String, Double>();
    var podUtil = new java.util.HashMap<String, Double>();
    var tokens = new ArrayList<Utilisation.Tokens>();
    for (var n : nodes) {
      if (!n.gpuResources().isEmpty()) {
        nodeUtil.put(n.name(), 5 + random.nextDouble() * 90);
      }
    }
    for (int i = 0; i < podCount; i++) {
      var node = nodes.get(random.nextInt(nodes.size()));
      var res = node.gpuResources().keySet().stream().findFirst().orElse(null);
      int units = res == null ? 0 : node.gpuResources().get(res);
      double gpus =
          res == null || random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(Math.max(1, units / 4));
      Instant start = node.createdAt().plus(Duration.ofMinutes(random.nextInt(600)));
      if (gpus > 0) {
        podUtil.put("ns-" + (i % 50) + "/pod-" + i, random.nextDouble() * 100);
        if (i % 10 == 0) {
          tokens.add(
              new Utilisation.Tokens(
                  "ns-" + (i % 50),
                  "pod-" + i,
                  "model-" + (i % 7),
                  "vllm",
                  1e6 + random.nextInt(50_000_000)));
        }
      }
      podList.add(
          new ClusterPod(
              "ns-" + (i % 50),
              "pod-" + i,
              "uid-" + i,
              node.name(),
              "team-" + (i % 12),
              gpus > 0 ? Map.of(res, gpus) : Map.of(),
              250 + random.nextInt(4000),
              (long) (1 + random.nextInt(32)) << 30,
              start.isAfter(now) ? now.minusSeconds(60) : start,
              null));
    }
    var spot = new ArrayList<SpotPricePoint>();
    for (String type : TYPES) {
      var od = StaticPrices.price(type).orElseThrow().usdPerHour();
      for (String zone : ZONES) {
        for (int h = 0; h <= 24; h += 2) {
          spot.add(
              new SpotPricePoint(
                  zone,
                  type,
                  now.minus(Duration.ofHours(25 - h)),
                  od.multiply(BigDecimal.valueOf(0.3 + random.nextDouble() * 0.3))));
        }
      }
    }
    var utilisation = new Utilisation("prometheus", nodeUtil, podUtil, tokens, List.of());
    var commitments =
        new Commitments(
            Commitments.COST_EXPLORER,
            Map.of(
                "us-east-1/p5", new Commitments.Coverage(0.7, "bench"),
                "us-east-1/p4d", new Commitments.Coverage(0.4, "bench")),
            0.55,
            Map.of("us-east-1/g6e.12xlarge", new Commitments.Coverage(0.5, "bench")),
            0.62,
            Map.of(),
            List.of());
    return new Fleet(nodes, ec2, podList, spot, utilisation, commitments);
  }

  static Map<String, Object> measure(int instances, int podCount, PrintStream log)
      throws Exception {
    Instant now = Instant.parse("2026-11-30T02:00:00Z");
    Clock clock = Clock.fixed(now, ZoneOffset.UTC);
    // warm-up on a small fleet so the figure is the report, not class loading
    for (int i = 0; i < 3; i++) {
      runOnce(fleet(1000, 10_000, now, i), clock, PricingStub.realTime());
    }

    log.println("bench cost: generating the fleet...");
    var fleet = fleet(instances, podCount, now, 42);
    var pricing = PricingStub.realTime();
    System.gc();
    resetPeaks();
    log.println("bench cost: report run...");
    long cpu0 = processCpuNanos();
    long t0 = System.nanoTime();
    var run = runOnce(fleet, clock, pricing);
    long wallMs = (System.nanoTime() - t0) / 1_000_000;
    long cpuMs = (processCpuNanos() - cpu0) / 1_000_000;
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    long peakHeap = peakHeapBytes();
    var distinctTypes = new HashSet<String>();
    fleet.instances().forEach(i -> distinctTypes.add(i.instanceType()));

    log.printf(
        "bench cost: baseline in full (%d pods: node-list scan join, Pricing API per pod)...%n",
        podCount);
    var naive = baseline(fleet);

    var r = new LinkedHashMap<String, Object>();
    r.put("bench", "cost");
    r.put("heap", HEAP);
    r.put("maxHeapMiB", Runtime.getRuntime().maxMemory() >> 20);
    r.put("instances", instances);
    r.put("pods", podCount);
    r.put("wallMs", wallMs);
    r.put("processCpuMs", cpuMs);
    r.put("systemLoadAverage", Math.round(load * 10) / 10.0);
    r.put("cpus", Runtime.getRuntime().availableProcessors());
    // sum of the heap pools' peaks: an upper bound of the heap in use at any one time
    r.put("peakHeapMiB", peakHeap >> 20);
    r.put("nodesReported", run.nodes());
    r.put("podsReported", run.pods());
    r.put("rows", run.rows());
    r.put(
        "migNodes",
        fleet.nodes().stream()
            .filter(n -> n.gpuLabels().containsKey("nvidia.com/mig.strategy"))
            .count());
    r.put(
        "timeSlicedNodes",
        fleet.nodes().stream()
            .filter(n -> n.gpuLabels().containsKey("nvidia.com/gpu.replicas"))
            .count());
    r.put(
        "draNodes",
        fleet.nodes().stream()
            .filter(n -> n.gpuResources().containsKey(ClusterNode.DRA_GPU))
            .count());
    r.put("utilisationNodes", fleet.utilisation().nodePercent().size());
    r.put("utilisationPods", fleet.utilisation().podPercent().size());
    r.put("tokenSeries", fleet.utilisation().tokens().size());
    r.put("reconciled", run.reconciled());
    r.put("jsonMiB", Math.round(run.jsonBytes() / 1048576.0 * 10) / 10.0);
    r.put("csvMiB", Math.round(run.csvBytes() / 1048576.0 * 10) / 10.0);
    r.put("htmlKiB", run.htmlBytes() >> 10);
    r.put("focus", run.focusBytes() >= 0);
    r.put("focusMiB", Math.round(Math.max(0, run.focusBytes()) / 1048576.0 * 10) / 10.0);
    r.put("pricingApiCalls", pricing.calls());
    r.put("regionTypePairs", distinctTypes.size());
    // the baseline ran over every pod, its Pricing calls counted by the stub that answered them
    r.put("baselinePods", naive.pods());
    r.put("baselinePodsJoined", naive.joined());
    r.put("baselineJoinAndCallsMs", naive.wallNanos() / 1_000_000);
    r.put("baselinePricingApiCalls", naive.pricingCalls());
    r.put("baselinePricingWaitMs", naive.pricingWaitNanos() / 1_000_000);
    r.put("baselinePricingWaitClock", PricingStub.VIRTUAL_CLOCK);
    r.put("baselineMs", naive.totalMs());
    r.put("speedup", Math.round(10.0 * naive.totalMs() / Math.max(1, wallMs)) / 10.0);
    r.put("targetMs", TARGET_MS);
    r.put(
        "pass",
        wallMs <= TARGET_MS
            && run.reconciled()
            && pricing.calls() <= distinctTypes.size()
            && Runtime.getRuntime().maxMemory() <= 512L << 20);
    return r;
  }

  record Run(
      int nodes,
      int pods,
      int rows,
      long jsonBytes,
      long csvBytes,
      long htmlBytes,
      long focusBytes,
      boolean reconciled) {}

  /** One run's report (tests). */
  public static io.gpufleet.cost.model.CostReport reportOnce(Fleet fleet, Clock clock) {
    var service = service(fleet, clock, PricingStub.virtualTime(), new SizeOnlyStore());
    service.run(new CostReportService.Request("24h", null, false), CostReportService.Progress.NONE);
    return service.lastReport();
  }

  /**
   * The measured run reports the window the template schedules (last-day) with the FOCUS file on,
   * as the function writes it; GPUFLEET_BENCH_FOCUS=off measures the same run without it.
   */
  static final String WINDOW = "last-day";

  static boolean focusOn() {
    return !"off".equals(System.getenv("GPUFLEET_BENCH_FOCUS"));
  }

  static Run runOnce(Fleet fleet, Clock clock, PricingApiPort pricing) {
    // what an S3 upload leaves behind in the function: nothing but the sizes
    var store = new SizeOnlyStore();
    var service = service(fleet, clock, pricing, store);
    if (focusOn()) {
      service.withFocus(
          io.gpufleet.cost.focus.FocusOutput.on(io.gpufleet.sim.aws.SimCapacityAccount.ACCOUNT));
    }
    long t0 = System.nanoTime();
    CostReportService.Progress progress =
        Boolean.getBoolean("gpufleet.bench.phases")
            ? m -> System.err.printf("  %5d ms  %s%n", (System.nanoTime() - t0) / 1_000_000, m)
            : CostReportService.Progress.NONE;
    var o = service.run(new CostReportService.Request(WINDOW, null, false), progress);
    var report = service.lastReport();
    String prefix = o.outputs().get("json").replace("cost.json", "");
    String focus = o.outputs().get("focus");
    return new Run(
        o.nodes(),
        o.pods(),
        report.rows().size(),
        store.sizes.get(prefix + "cost.json"),
        store.sizes.get(prefix + "cost.csv"),
        store.sizes.get(prefix + "cost.html"),
        focus == null ? -1 : store.sizes.get(focus.substring(focus.indexOf("focus/"))),
        report.reconciliation().balanced());
  }

  static CostReportService service(
      Fleet fleet, Clock clock, PricingApiPort api, SizeOnlyStore store) {
    OnDemandPriceChain prices =
        OnDemandPricing.create(Optional.of(api), new Settings(Map.of()), Optional.of(store), clock);
    CostClusterPort cluster =
        new CostClusterPort() {
          @Override
          public List<ClusterNode> nodes() {
            return fleet.nodes();
          }

          @Override
          public List<ClusterPod> pods() {
            return fleet.pods();
          }
        };
    InstancePort ec2 = (String c, Collection<String> ids) -> fleet.instances();
    SpotPriceHistoryPort spot = (Set<String> types, Instant s, Instant e) -> fleet.spot();
    return new CostReportService(
        CostSettings.defaults("bench"),
        "us-east-1",
        cluster,
        ec2,
        spot,
        prices,
        store,
        CostReporting.reporter(MetricsPort.NONE, EventPublisherPort.NONE, NotifierPort.NONE),
        clock,
        w -> fleet.commitments(),
        (w, n) -> fleet.utilisation());
  }

  /**
   * The Pricing API as the function meets it through {@code PricingApiAdapter}: a token bucket at
   * the client's default 5 requests/s, burst 10 (fleet-core's {@link TokenBucket}), then a 50 ms
   * round trip; it answers from the static table and counts every call it answers. On the real
   * clock (the measured report) it waits; on a virtual clock (the baseline, whose 100 000 calls
   * would wait about 20 000 s) the same bucket and round trips advance a clock of its own.
   */
  static final class PricingStub implements PricingApiPort {
    static final Duration ROUND_TRIP = Duration.ofMillis(50);
    static final String VIRTUAL_CLOCK =
        "virtual: 50 ms per call behind a token bucket of 5/s, burst 10 (PricingApiAdapter's"
            + " defaults); calls executed and counted by the stub";
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicLong waitedNanos = new AtomicLong();
    private final TokenBucket bucket;
    private final Sleeper sleeper;

    private PricingStub(LongSupplier nanoTime, Sleeper sleeper) {
      this.sleeper = sleeper;
      this.bucket = new TokenBucket(5, 10, nanoTime, sleeper);
    }

    static PricingStub realTime() {
      return new PricingStub(System::nanoTime, Sleeper.SYSTEM);
    }

    /** Waits on a clock of its own that only its waits move (for one caller at a time). */
    static PricingStub virtualTime() {
      var now = new AtomicLong();
      return new PricingStub(now::get, d -> now.addAndGet(d.toNanos()));
    }

    @Override
    public Optional<BigDecimal> hourly(String region, String instanceType) {
      try {
        long waited = bucket.acquire().toNanos();
        sleeper.sleep(ROUND_TRIP);
        waitedNanos.addAndGet(waited + ROUND_TRIP.toNanos());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted in the Pricing API stub", e);
      }
      calls.incrementAndGet();
      return StaticPrices.price(instanceType).map(StaticPrice::usdPerHour);
    }

    int calls() {
      return calls.get();
    }

    /** Time spent waiting for tokens and round trips, summed over calls. */
    long waitedNanos() {
      return waitedNanos.get();
    }
  }

  /**
   * The baseline's figures: every pod joined and priced; its own time (executed) and its Pricing
   * calls' waiting (on the stub's virtual clock).
   */
  record Baseline(
      int pods,
      int joined,
      int pricingCalls,
      long wallNanos,
      long pricingWaitNanos,
      BigDecimal total) {
    long totalMs() {
      return (wallNanos + pricingWaitNanos) / 1_000_000;
    }
  }

  /**
   * The naive way, over every pod of the fleet: join each pod to its node by a scan of the node
   * list, then ask the Pricing API for that node's price (no cache, no single flight).
   */
  static Baseline baseline(Fleet fleet) {
    var api = PricingStub.virtualTime();
    long t0 = System.nanoTime();
    int joined = 0;
    BigDecimal total = BigDecimal.ZERO;
    for (ClusterPod p : fleet.pods()) {
      ClusterNode found = null;
      for (ClusterNode n : fleet.nodes()) {
        if (n.name().equals(p.nodeName())) {
          found = n;
          break;
        }
      }
      if (found != null) {
        joined++;
        total = total.add(api.hourly("us-east-1", found.instanceType()).orElseThrow());
      }
    }
    long wall = System.nanoTime() - t0;
    return new Baseline(fleet.pods().size(), joined, api.calls(), wall, api.waitedNanos(), total);
  }

  /** A blob store that keeps only the size of what was put (the report leaves by upload). */
  static final class SizeOnlyStore implements io.gpufleet.core.store.BlobStorePort {
    final Map<String, Long> sizes = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public Optional<byte[]> get(String key) {
      return Optional.empty();
    }

    @Override
    public void put(String key, byte[] body, String contentType) {
      sizes.put(key, (long) body.length);
    }

    /** Nothing is ever kept, so every key reads as absent. */
    @Override
    public Versioned getVersioned(String key) {
      return Versioned.absent();
    }

    @Override
    public boolean putIfUnchanged(String key, byte[] body, String contentType, String etag) {
      if (etag != null) {
        return false;
      }
      put(key, body, contentType);
      return true;
    }

    @Override
    public String locate(String key) {
      return key;
    }
  }

  /** CPU time of this JVM, all threads (GC included). */
  private static long processCpuNanos() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
  }

  private static void resetPeaks() {
    for (var pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long peakHeapBytes() {
    long sum = 0;
    for (var pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }
}

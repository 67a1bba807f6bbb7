package io.gpufleet.cli;

import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisher;
import io.gpufleet.core.outcome.MetricsSink;
import io.gpufleet.core.outcome.Notifier;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.DrainWiring;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code gpufleet bench NAME}: each benchmark runs its scenario and a baseline in the same run and
 * prints one JSON line last.
 */
final class BenchCommand {
  private final PrintStream out;
  private final PrintStream err;

  BenchCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  static final String NAMES =
      "drain [--real], drain-burst [--clusters N], cold [--function F], preflight, budgets, cost, tune FUNCTION";

  /**
   * Each function's MemorySize in template.yaml (checked against it by a test), chosen with {@code
   * bench tune} (BENCHMARKS.md): the default {@code --memory} of its benchmarks.
   */
  static final Map<String, Integer> TEMPLATE_MEMORY_MB =
      Map.of(
          "interruption-drain", 3008,
          "disruption-schedule", 1536,
          "capacity-preflight", 1024,
          "cost-report", 1024);

  /** The share a bench gives its function: --memory MB, else the template's size. */
  static Confinement confinement(Args args, String function, String bench) {
    int memory =
        (int)
            args.number(
                "memory", TEMPLATE_MEMORY_MB.get(function), LambdaShare.MIN_MB, LambdaShare.MAX_MB);
    if (args.flag("unconfined")) {
      return Confinement.unconfined(memory, "--unconfined: the whole machine, on purpose");
    }
    return Confinement.of(memory, bench);
  }

  int run(List<String> argv) throws Exception {
    if (argv.isEmpty()) {
      throw new ConfigException("bench: name a benchmark: " + NAMES);
    }
    String name = argv.get(0);
    var args =
        Args.parse(
            "bench " + name,
            argv.subList(1, argv.size()),
            Set.of(
                "pods",
                "latency-ms",
                "events",
                "runs",
                "instances",
                "pools",
                "workloads",
                "regions",
                "memory",
                "function",
                "sizes",
                "warm-runs",
                "clusters"),
            Set.of("real", "unconfined", "baseline"));
    if (name.equals("tune")) {
      return new TuneCommand(out, err).run(args);
    }
    boolean baseline = args.get("baseline").isEmpty() || args.flag("baseline");
    Map<String, Object> result =
        switch (name) {
          case "drain" -> {
            if (args.flag("real")) {
              yield new RealDrainBench(err).run(args);
            }
            try (var share = confinement(args, "interruption-drain", name)) {
              yield drain(
                  (int) args.number("pods", 110, 1, 5000),
                  (int) args.number("latency-ms", 20, 0, 1000),
                  baseline,
                  share);
            }
          }
          case "drain-burst" -> {
            int events = (int) args.number("events", 200, 1, 2000);
            try (var share = burstConfinement(args, events)) {
              yield burst(
                  events,
                  (int) args.number("pods", 30, 0, 500),
                  (int) args.number("latency-ms", 20, 0, 1000),
                  (int) args.number("clusters", 1, 1, 8),
                  share);
            }
          }
          case "cold" -> {
            String function = args.get("function").orElse("interruption-drain");
            if (!TEMPLATE_MEMORY_MB.containsKey(function)) {
              throw new ConfigException(
                  "bench cold: unknown --function "
                      + function
                      + " ("
                      + TEMPLATE_MEMORY_MB.keySet()
                      + ")");
            }
            try (var share = confinement(args, function, name)) {
              yield new ColdBench(err).run(function, (int) args.number("runs", 3, 1, 20), share);
            }
          }
          case "preflight" -> {
            try (var share = confinement(args, "capacity-preflight", name)) {
              yield new PreflightBench(err)
                  .run(
                      (int) args.number("latency-ms", 100, 0, 1000),
                      (int) args.number("regions", 17, 1, 17),
                      baseline,
                      share);
            }
          }
          case "cost" -> {
            try (var share = confinement(args, "cost-report", name)) {
              yield new CostBench(err)
                  .run(
                      (int) args.number("instances", 10_000, 1, 100_000),
                      (int) args.number("pods", 100_000, 0, 1_000_000),
                      share);
            }
          }
          case "budgets" -> {
            try (var share = confinement(args, "disruption-schedule", name)) {
              yield new BudgetsBench(err)
                  .run(
                      (int) args.number("pools", 50, 1, 500),
                      (int) args.number("workloads", 500, 1, 5000),
                      (int) args.number("latency-ms", 10, 0, 1000),
                      baseline,
                      share);
            }
          }
          default ->
              throw new ConfigException("bench: unknown benchmark '" + name + "' (" + NAMES + ")");
        };
    out.println(Json.write(result));
    return Boolean.TRUE.equals(result.get("pass")) ? 0 : 1;
  }

  // ---------------------------------------------------------------- drain

  static final String BENCH_INSTANCE = "i-0be0c0000000000a1";
  static final String WARM_INSTANCE = "i-0be0c0000000000c3";

  /**
   * The simulated API server (with the latency) runs here; the drain runs in a child JVM in the
   * share: a warm-up drain of a 3-pod node, the measured drain, then the baseline.
   */
  private Map<String, Object> drain(int pods, int latencyMs, boolean baseline, Confinement share)
      throws Exception {
    var time = SimTime.realTime();
    try (var cluster = SimCluster.start(time)) {
      seedNode(cluster, "bench-node", BENCH_INSTANCE, pods);
      seedNode(cluster, "baseline-node", "i-0be0c0000000000b2", pods);
      seedNode(cluster, "warm-node", WARM_INSTANCE, 3);
      warmServer(cluster, time, pods);
      cluster.setLatency(Duration.ofMillis(latencyMs));
      share.announce(err, "drain");
      err.printf(
          "bench drain: %d pods, %d ms API latency (added by the server)%n", pods, latencyMs);
      var f =
          share.runChild("drain", Map.of("url", cluster.url(), "pods", pods, "baseline", baseline));
      long issued = ((Number) f.get("evictionsIssuedMs")).longValue();
      double speedup = baseline ? ((Number) f.get("speedup")).doubleValue() : Double.NaN;
      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "drain");
      r.put("pods", pods);
      r.put("latencyMs", latencyMs);
      r.putAll(f);
      r.put("share", share.describe());
      r.put("targetEvictionsIssuedMs", 1000);
      r.put("targetSpeedup", 15);
      r.put(
          "pass",
          "DRAINED".equals(f.get("status"))
              && ((Number) f.get("evicted")).intValue() == pods
              && issued <= 1000
              && (!baseline || speedup >= 15));
      return r;
    }
  }

  /**
   * The simulated API server runs in this JVM: one drain of a node of the same size through it,
   * before the latency is on, so the server's code is compiled when the function is measured (a
   * real API server is warm), not only after the function's own tiny warm-up.
   */
  static void warmServer(SimCluster cluster, SimTime time, int pods) {
    try (KubernetesClient client = cluster.newClient()) {
      var service = service(client, time);
      for (int i = 0; i < 3; i++) {
        String instance = instanceId(200_000 + i);
        seedNode(cluster, "server-warm-" + i, instance, pods);
        service.handle(
            FixtureEvents.event(
                DrainKind.SPOT_INTERRUPTION, "server-warm-" + i, instance, time.now()),
            time.now().plusSeconds(170));
      }
    }
  }

  /** client-go's default: QPS 5, burst 10, one eviction after another. */
  static long sequentialBaseline(KubernetesClient client, String node, int pods)
      throws InterruptedException {
    var limiter = new TokenBucket(5, 10);
    long start = System.nanoTime();
    limiter.acquire();
    client
        .nodes()
        .withName(node)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    limiter.acquire();
    var list = client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems();
    for (var p : list) {
      if ("DaemonSet".equals(p.getMetadata().getOwnerReferences().get(0).getKind())) {
        continue;
      }
      limiter.acquire();
      client
          .pods()
          .inNamespace(p.getMetadata().getNamespace())
          .withName(p.getMetadata().getName())
          .evict(
              new EvictionBuilder()
                  .withNewMetadata()
                  .withName(p.getMetadata().getName())
                  .withNamespace(p.getMetadata().getNamespace())
                  .endMetadata()
                  .build());
    }
    return (System.nanoTime() - start) / 1_000_000;
  }

  /**
   * The figures both drain benchmarks report (after the fields that name the scenario), and the
   * pods that were not evicted on stderr; returns the speedup over the baseline.
   */
  static double putDrainFigures(
      Map<String, Object> r, DrainOutcome o, long baselineIssued, PrintStream err) {
    o.podsNotEvicted()
        .forEach(
            n -> err.println("  not evicted: " + n.pod() + " " + n.status() + " " + n.reason()));
    var t = o.timings();
    double speedup = (double) baselineIssued / Math.max(1, t.evictionsIssuedMs());
    r.put("status", o.status().name());
    r.put("evicted", o.podsEvicted().size());
    r.put("cordonedMs", t.cordonedMs());
    r.put("evictionsIssuedMs", t.evictionsIssuedMs());
    r.put("allGoneMs", t.allGoneMs());
    r.put("baselineEvictionsIssuedMs", baselineIssued);
    r.put("speedup", Math.round(speedup * 10) / 10.0);
    return speedup;
  }

  /** A token bucket like client-go's flowcontrol limiter. */
  static final class TokenBucket {
    private final double perSecond;
    private final double burst;
    private double tokens;
    private long last = System.nanoTime();

    TokenBucket(double perSecond, int burst) {
      this.perSecond = perSecond;
      this.burst = burst;
      this.tokens = burst;
    }

    synchronized void acquire() throws InterruptedException {
      while (true) {
        long now = System.nanoTime();
        tokens = Math.min(burst, tokens + (now - last) / 1e9 * perSecond);
        last = now;
        if (tokens >= 1) {
          tokens -= 1;
          return;
        }
        long waitNanos = (long) ((1 - tokens) / perSecond * 1e9);
        Thread.sleep(Duration.ofNanos(waitNanos));
      }
    }
  }

  // ---------------------------------------------------------------- drain-burst

  /**
   * A burst of N events is N Lambda environments at once: the child holding all the invocations
   * gets N shares, capped at the host's CPUs (the JSON says when the cap applies).
   */
  static Confinement burstConfinement(Args args, int events) {
    int memory =
        (int)
            args.number(
                "memory",
                TEMPLATE_MEMORY_MB.get("interruption-drain"),
                LambdaShare.MIN_MB,
                LambdaShare.MAX_MB);
    if (args.flag("unconfined")) {
      return Confinement.unconfined(memory, "--unconfined: the whole machine, on purpose");
    }
    return Confinement.of(new LambdaShare(memory), events, "drain-burst", CpuCgroup.SYSFS);
  }

  /**
   * {@code clusters} &gt; 1: the drain serves that many simulated clusters, the burst's nodes in
   * the last one routed to, so each event's first lookup asks every cluster (each other cluster
   * holds {@code events} nodes of its own).
   */
  private Map<String, Object> burst(
      int events, int podsPerNode, int latencyMs, int clusters, Confinement share)
      throws Exception {
    var time = SimTime.realTime();
    var others = new ArrayList<SimCluster>();
    try (var cluster = SimCluster.start(time);
        AutoCloseable closeOthers = () -> others.forEach(SimCluster::close)) {
      for (int c = 1; c < clusters; c++) {
        var other = SimCluster.start(time);
        others.add(other);
        for (int i = 0; i < events; i++) {
          seedNode(other, "other-" + c + "-" + i, instanceId(200_000 * c + i), 0);
        }
        other.setLatency(Duration.ofMillis(latencyMs));
      }
      err.printf("bench drain-burst: seeding %d nodes x %d pods...%n", events, podsPerNode);
      for (int i = 0; i < events; i++) {
        seedNode(cluster, "burst-" + i, instanceId(i), podsPerNode);
      }
      for (int i = 0; i < events; i++) {
        seedNode(cluster, "seq-" + i, instanceId(100_000 + i), 0);
      }
      seedNode(cluster, "warm-node", WARM_INSTANCE, 3);
      warmServer(cluster, time, podsPerNode);
      cluster.setLatency(Duration.ofMillis(latencyMs));
      share.announce(err, "drain-burst");
      var f =
          share.runChild(
              "burst",
              Map.of(
                  "url",
                  cluster.url(),
                  "events",
                  events,
                  "otherUrls",
                  others.stream().map(SimCluster::url).toList()));
      long podsLeft = 0;
      for (int i = 0; i < events; i++) {
        podsLeft +=
            cluster.podsOn("burst-" + i).stream()
                .filter(
                    p -> !"DaemonSet".equals(p.getMetadata().getOwnerReferences().get(0).getKind()))
                .count();
      }
      long allCordonedMs = ((Number) f.get("allCordonedMs")).longValue();
      long baseline = ((Number) f.get("baselineSequentialCordonMs")).longValue();
      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "drain-burst");
      r.put("events", events);
      r.put("podsPerNode", podsPerNode);
      r.put("latencyMs", latencyMs);
      r.put("clusters", clusters);
      r.putAll(f);
      r.put("podsLeft", podsLeft);
      r.put("speedup", Math.round(10.0 * baseline / Math.max(1, allCordonedMs)) / 10.0);
      r.put("share", share.describe());
      r.put("targetAllCordonedMs", 2000);
      int outcomes = ((Number) f.get("outcomes")).intValue();
      long drained = ((Number) f.get("drained")).longValue();
      r.put(
          "pass",
          outcomes == events && drained == events && podsLeft == 0 && allCordonedMs <= 2000);
      return r;
    }
  }

  static String instanceId(int i) {
    return String.format("i-0%016x", 0xb0000000L + i);
  }

  // ---------------------------------------------------------------- shared

  static DrainService service(KubernetesClient client, SimTime time) {
    return DrainWiring.service(
        client,
        DrainSettings.defaults("bench"),
        MetricsSink.NONE,
        EventPublisher.NONE,
        Notifier.NONE,
        time.clock(),
        time.sleeper());
  }

  static void seedNode(SimCluster cluster, String node, String instance, int pods) {
    cluster.create(
        SimCluster.gpuNode(node, instance, "us-east-1a", "g6e.12xlarge", "spot", "bench", null, 4));
    for (int i = 0; i < pods; i++) {
      cluster.create(
          SimCluster.runningPod(
              "bench", node + "-p" + i, node, "ReplicaSet", "work", Map.of("app", "work"), 30, 0));
    }
    cluster.create(
        SimCluster.runningPod(
            "kube-system", node + "-ds", node, "DaemonSet", "ds", Map.of("app", "ds"), 30, 0));
  }
}

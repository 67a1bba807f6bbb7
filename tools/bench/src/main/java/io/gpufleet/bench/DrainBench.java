package io.gpufleet.bench;

import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpufleet.core.pricing.TokenBucket;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.scenario.SyntheticEvents;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code bench drain}: one node's drain in a child JVM confined to the drain's Lambda share,
 * against the simulated API server (with its latency) in this JVM, beside client-go's sequential
 * QPS-5 evictions; and what the drain benchmarks share (the seeded nodes, the figures).
 */
public final class DrainBench {
  private final PrintStream err;

  public DrainBench(PrintStream err) {
    this.err = err;
  }

  // ---------------------------------------------------------------- drain

  public static final String BENCH_INSTANCE = "i-0be0c0000000000a1";
  public static final String WARM_INSTANCE = "i-0be0c0000000000c3";

  /**
   * The simulated API server (with the latency) runs here; the drain runs in a child JVM in the
   * share: a warm-up drain of a 3-pod node, the measured drain, then the baseline.
   */
  public Map<String, Object> drain(int pods, int latencyMs, boolean baseline, Confinement share)
      throws Exception {
    var time = SimTime.realTime();
    // as deployed: HTTPS, and HTTP/2 multiplexing the evictions over one connection (ALPN), as
    // against an EKS API server (the child trusts the cluster CA, as the function trusts EKS's)
    try (var cluster = SimCluster.startHttps(time)) {
      seedNode(cluster, "bench-node", BENCH_INSTANCE, pods);
      seedNode(cluster, "baseline-node", "i-0be0c0000000000b2", pods);
      seedNode(cluster, "warm-node", WARM_INSTANCE, 3);
      warmServer(cluster, time, pods);
      cluster.setLatency(Duration.ofMillis(latencyMs));
      share.announce(err, "drain");
      err.printf(
          "bench drain: %d pods, %d ms API latency (added by the server)%n", pods, latencyMs);
      var input = new LinkedHashMap<String, Object>();
      input.put("url", cluster.url());
      cluster.caData().ifPresent(ca -> input.put("ca", ca));
      input.put("pods", pods);
      input.put("baseline", baseline);
      var f = share.runChild("drain", input);
      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "drain");
      r.put("pods", pods);
      r.put("latencyMs", latencyMs);
      r.put("apiServer", "HTTPS, HTTP/2 negotiated by ALPN as by kube-apiserver");
      r.putAll(f);
      r.put("share", share.describe());
      long target = physicalLimitMs(latencyMs);
      r.put("targetEvictionsIssuedMs", target);
      r.put(
          "targetFormula", PHYSICAL_LIMIT_FORMULA + " at " + latencyMs + " ms = " + target + " ms");
      // the limiter baseline is context: the speedup over it says nothing the target does not
      r.put("baselineIsContextOnly", true);
      r.put("pass", drainPasses(f, pods, target));
      // issue 15's bar for the memory size (bench tune): the deadline, not the physical limit
      r.put("deadlineTargetEvictionsIssuedMs", DEADLINE_TARGET_MS);
      r.put("deadlinePass", drainPasses(f, pods, DEADLINE_TARGET_MS));
      return r;
    }
  }

  /**
   * What a memory size must give the drain (issue 15, judged by {@code bench tune}): every eviction
   * issued within 1 s at 20 ms per request, whatever the physical limit says can be reached.
   */
  public static final long DEADLINE_TARGET_MS = 1000;

  /** Round trips on a drain's path to its last eviction (see {@link #physicalLimitMs}). */
  public static final int DRAIN_ROUND_TRIPS = 6;

  /** What the drain may spend beyond its round trips: its own CPU, JSON and scheduling. */
  public static final int DRAIN_SLACK_MS = 30;

  public static final String PHYSICAL_LIMIT_FORMULA =
      DRAIN_ROUND_TRIPS + " round trips x latencyMs + " + DRAIN_SLACK_MS + " ms";

  /**
   * The target of {@code bench drain} (issue 11), set against the physical limit rather than a
   * baseline: the last eviction cannot be answered before the round trips on its path, each paying
   * the RTT the simulated server adds to every request. The path today: list the nodes to find the
   * instance (or a copy listed earlier), one patch that claims, cordons and taints (a stale copy
   * costs a 409 and a re-read, two more), list the node's pods, then the evictions, all in flight
   * at once (DRAIN_EVICTION_CONCURRENCY 128 ≥ the 110 pods a node admits). Six round trips cover
   * that worst case; 30 ms is what the function may spend on its own CPU.
   */
  public static long physicalLimitMs(int latencyMs) {
    return (long) DRAIN_ROUND_TRIPS * latencyMs + DRAIN_SLACK_MS;
  }

  /** Every pod evicted, the node drained, and the last eviction answered within the target. */
  public static boolean drainPasses(Map<String, Object> figures, int pods, long targetMs) {
    Object issued = figures.get("evictionsIssuedMs");
    return "DRAINED".equals(figures.get("status"))
        && figures.get("evicted") instanceof Number evicted
        && evicted.intValue() == pods
        && issued instanceof Number n
        && n.longValue() <= targetMs;
  }

  /**
   * The simulated API server runs in this JVM: one drain of a node of the same size through it,
   * before the latency is on, so the server's code is compiled when the function is measured (a
   * real API server is warm), not only after the function's own tiny warm-up.
   */
  public static void warmServer(SimCluster cluster, SimTime time, int pods) {
    try (KubernetesClient client = cluster.newClient()) {
      var service = service(client, time);
      for (int i = 0; i < 3; i++) {
        String instance = instanceId(200_000 + i);
        seedNode(cluster, "server-warm-" + i, instance, pods);
        service.handle(
            SyntheticEvents.event(
                DrainKind.SPOT_INTERRUPTION, "server-warm-" + i, instance, time.now()),
            time.now().plusSeconds(170));
      }
    }
  }

  /**
   * client-go's default: QPS 5, burst 10 (its flowcontrol token bucket, here fleet-core's), one
   * eviction after another.
   */
  public static long sequentialBaseline(KubernetesClient client, String node, int pods)
      throws InterruptedException {
    var limiter = TokenBucket.system(5, 10);
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
  public static double putDrainFigures(
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

  // ---------------------------------------------------------------- shared

  public static DrainService service(KubernetesClient client, SimTime time) {
    return DrainWiring.service(
        client, DrainWiring.Parts.of(DrainSettings.defaults("bench")).timedBy(time));
  }

  public static void seedNode(SimCluster cluster, String node, String instance, int pods) {
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

  public static String instanceId(int i) {
    return String.format("i-0%016x", 0xb0000000L + i);
  }
}

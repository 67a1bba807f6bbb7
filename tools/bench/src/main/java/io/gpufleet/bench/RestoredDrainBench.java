package io.gpufleet.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.lambda.SnapStart;
import io.gpufleet.drain.k8s.DrainClusterAdapter;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.wiring.DrainPriming;
import io.gpufleet.scenario.SyntheticEvents;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code gpufleet bench drain --restored}: the first event a SnapStart-restored environment
 * handles. Each run is a fresh function JVM in the Lambda share that does the function's INIT (the
 * client, the service, the read-only priming every INIT does), then the beforeCheckpoint priming (a
 * complete drain against a loopback API server, {@link DrainPriming#beforeSnapshot()}), then what
 * afterRestore does (renew credentials, tokens and connections), and only then meets its first
 * event: the figure a restored environment gives, minus the restore itself, which only Lambda can
 * do. Beside it, in the same run, the same JVM without the priming drain ({@code unprimed}: INIT's
 * read-only priming only, as an environment without SnapStart, or with today's priming, meets its
 * first event). Runs alternate between the two so a busy host weighs on both alike.
 */
public final class RestoredDrainBench {
  /** The issue's bar at 20 ms per request, on a quiet host, median of 5. */
  static final long TARGET_CORDONED_MS = 50;

  static final long TARGET_EVICTIONS_ISSUED_MS = 200;

  private final PrintStream err;

  public RestoredDrainBench(PrintStream err) {
    this.err = err;
  }

  public Map<String, Object> run(int pods, int latencyMs, int runs, Confinement share)
      throws Exception {
    var time = SimTime.realTime();
    try (var cluster = SimCluster.startHttps(time)) {
      for (int k = 0; k < runs; k++) {
        DrainBench.seedNode(cluster, node("restored", k), instance("restored", k), pods);
        DrainBench.seedNode(cluster, node("unprimed", k), instance("unprimed", k), pods);
      }
      DrainBench.warmServer(cluster, time, pods);
      cluster.setLatency(Duration.ofMillis(latencyMs));
      share.announce(err, "drain --restored");
      var restored = new ArrayList<Map<String, Object>>();
      var unprimed = new ArrayList<Map<String, Object>>();
      for (int k = 0; k < runs; k++) {
        for (String mode :
            k % 2 == 0 ? List.of("restored", "unprimed") : List.of("unprimed", "restored")) {
          err.printf("bench drain --restored: run %d of %d, %s...%n", k + 1, runs, mode);
          var input = new LinkedHashMap<String, Object>();
          input.put("url", cluster.url());
          cluster.caData().ifPresent(ca -> input.put("ca", ca));
          input.put("mode", mode);
          input.put("node", node(mode, k));
          input.put("instance", instance(mode, k));
          var f = share.runChild("drain-first", input);
          (mode.equals("restored") ? restored : unprimed).add(f);
        }
      }
      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "drain");
      r.put("mode", "restored");
      r.put(
          "modeMeans",
          "each run a fresh function JVM in the share: INIT, the beforeCheckpoint priming (a"
              + " complete drain against a loopback API server), afterRestore's renewals, then the"
              + " first event timed; the restore itself (Lambda's) not included. Baseline: the same"
              + " without the priming drain (unprimed), alternating with it");
      r.put("pods", pods);
      r.put("latencyMs", latencyMs);
      r.put("runs", runs);
      r.put("apiServer", "HTTPS, HTTP/2 negotiated by ALPN as by kube-apiserver");
      r.put("restored", summary(restored));
      r.put("unprimed", summary(unprimed));
      r.put("restoredRuns", restored);
      r.put("unprimedRuns", unprimed);
      r.put("share", share.describe());
      var med = summary(restored);
      r.put("targetCordonedMs", TARGET_CORDONED_MS);
      r.put("targetEvictionsIssuedMs", TARGET_EVICTIONS_ISSUED_MS);
      boolean drained =
          restored.stream()
              .allMatch(
                  f ->
                      "DRAINED".equals(f.get("status"))
                          && f.get("evicted") instanceof Number n
                          && n.intValue() == pods);
      r.put("allDrained", drained);
      r.put(
          "pass",
          drained
              && med.get("cordonedMs") instanceof Number c
              && c.longValue() <= TARGET_CORDONED_MS
              && med.get("evictionsIssuedMs") instanceof Number i
              && i.longValue() <= TARGET_EVICTIONS_ISSUED_MS);
      return r;
    }
  }

  private static String node(String mode, int k) {
    return mode + "-node-" + k;
  }

  private static String instance(String mode, int k) {
    return DrainBench.instanceId((mode.equals("restored") ? 400_000 : 500_000) + k);
  }

  /** Medians of the runs' figures (and their init and priming times). */
  static Map<String, Object> summary(List<Map<String, Object>> runs) {
    var m = new LinkedHashMap<String, Object>();
    for (String key :
        List.of("initMs", "primingMs", "cordonedMs", "evictionsIssuedMs", "allGoneMs")) {
      var values = new ArrayList<Long>();
      for (var f : runs) {
        if (f.get(key) instanceof Number n) {
          values.add(n.longValue());
        }
      }
      values.sort(null);
      m.put(key, values.isEmpty() ? null : values.get(values.size() / 2));
    }
    m.put("statistic", "median of " + runs.size());
    return m;
  }

  // ---------------------------------------------------------------- the function's JVM

  /** One environment: INIT, the priming ({@code mode} restored) or not, the first event. */
  static Map<String, Object> child(JsonNode input, PrintStream err) throws Exception {
    boolean primed = input.get("mode").asText().equals("restored");
    var time = SimTime.realTime();
    long t0 = System.nanoTime();
    try (KubernetesClient client = BenchChild.client(input)) {
      var service = DrainBench.service(client, time);
      // what every INIT primes (DrainPriming.wire): the read-only paths, the client's JSON
      DrainPriming.readOnlyPaths();
      DrainClusterAdapter.prime(client.getKubernetesSerialization());
      long initMs = (System.nanoTime() - t0) / 1_000_000;
      String priming = null;
      long primingMs = 0;
      if (primed) {
        long p0 = System.nanoTime();
        priming = DrainPriming.beforeSnapshot();
        // afterRestore: the INIT's credentials, tokens and connections dropped
        SnapStart.afterRestore();
        primingMs = (System.nanoTime() - p0) / 1_000_000;
      }
      String node = input.get("node").asText();
      var classes = java.lang.management.ManagementFactory.getClassLoadingMXBean();
      var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
      long classes0 = classes.getTotalLoadedClassCount();
      long jit0 = jit.getTotalCompilationTime();
      DrainOutcome o =
          service
              .handle(
                  SyntheticEvents.spot(node, input.get("instance").asText(), time.now()),
                  time.now().plusSeconds(170))
              .get(0);
      var r = new LinkedHashMap<String, Object>();
      r.put("mode", input.get("mode").asText());
      r.put("initMs", initMs);
      r.put("primingMs", primed ? primingMs : null);
      r.put("priming", priming);
      // where the first event's time went besides the wire: classes it loaded, JIT time meanwhile
      r.put("classesLoadedByEvent", classes.getTotalLoadedClassCount() - classes0);
      r.put("jitMsDuringEvent", jit.getTotalCompilationTime() - jit0);
      DrainBench.putDrainFigures(r, o, 0, err);
      r.remove("baselineEvictionsIssuedMs");
      r.remove("speedup");
      return r;
    }
  }
}

package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.outcome.EventPublisher;
import io.gpufleet.core.outcome.MetricsSink;
import io.gpufleet.core.outcome.Notifier;
import io.gpufleet.schedule.PolicySource;
import io.gpufleet.schedule.ScheduleService;
import io.gpufleet.schedule.ScheduleSettings;
import io.gpufleet.schedule.ScheduleWiring;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimObjects;
import io.gpufleet.sim.SimTime;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code gpufleet bench budgets}: a night-time reconcile of N NodePools and M workloads behind an
 * API server with a fixed latency per request, then a second, unchanged run (must write nothing),
 * against a baseline in the same run: the same reconcile on an identical cluster with one write in
 * flight at a time (sequential).
 */
final class BudgetsBench {
  static final String POLICY =
      """
      timeZone: Europe/Berlin
      defaultWindow: off-hours
      windows: { business-hours: { days: mon-fri, hours: "08:00-19:00" } }
      nodePools:
        - name: gpu
          selector: { labels: { bench: gpu } }
          windows:
            off-hours: { budgets: [{ nodes: "50%" }], consolidateAfter: 5m }
      workloads:
        - name: all
          selector: { labels: { bench: scheduled } }
          replicas: { off-hours: 0 }
      """;

  /** Monday 2026-03-02 23:00 in Berlin. */
  static final Instant NIGHT = Instant.parse("2026-03-02T22:00:00Z");

  private final PrintStream err;

  BudgetsBench(PrintStream err) {
    this.err = err;
  }

  Map<String, Object> run(int pools, int workloads, int latencyMs) throws Exception {
    // A fresh JVM's first reconcile mostly measures class loading and the JIT; it is reported
    // (coldJvmFirstRunMs), then the JVM is warmed on that cluster with a few day/night cycles, and
    // the measured runs go to a fresh cluster, as a Lambda environment serves its later ticks.
    err.println("bench budgets: first reconcile in this JVM (cold), then warming up...");
    long coldMs;
    try (var warm = SimCluster.start(SimTime.realTime());
        KubernetesClient c = warm.newClient()) {
      seed(warm, pools, workloads);
      warm.setLatency(Duration.ofMillis(latencyMs));
      var s = service(c, 64);
      long tc = System.nanoTime();
      s.reconcile(NIGHT, false, null);
      coldMs = (System.nanoTime() - tc) / 1_000_000;
      for (int i = 1; i <= 4; i++) {
        s.reconcile(NIGHT.plus(Duration.ofHours(12L * i)), false, null);
      }
    }
    try (var cluster = SimCluster.start(SimTime.realTime());
        KubernetesClient client = cluster.newClient();
        var baseline = SimCluster.start(SimTime.realTime());
        KubernetesClient baselineClient = baseline.newClient()) {
      seed(cluster, pools, workloads);
      seed(baseline, pools, workloads);
      cluster.setLatency(Duration.ofMillis(latencyMs));
      baseline.setLatency(Duration.ofMillis(latencyMs));

      err.printf(
          "bench budgets: %d NodePools + %d workloads, %d ms per API request%n",
          pools, workloads, latencyMs);
      ScheduleService service =
          service(client, ScheduleSettings.defaults("bench", "inline").writeConcurrency());
      long t0 = System.nanoTime();
      ScheduleOutcome first = service.reconcile(NIGHT, false, null);
      long firstMs = (System.nanoTime() - t0) / 1_000_000;
      int firstRequests = cluster.requests().size();
      long firstWrites = cluster.requests().stream().filter(r -> !r.method().equals("GET")).count();

      cluster.clearRequests();
      long t1 = System.nanoTime();
      ScheduleOutcome second = service.reconcile(NIGHT.plusSeconds(900), false, null);
      long secondMs = (System.nanoTime() - t1) / 1_000_000;
      long secondWrites =
          cluster.requests().stream().filter(r -> !r.method().equals("GET")).count();

      err.println("bench budgets: baseline (one write at a time)...");
      long t2 = System.nanoTime();
      ScheduleOutcome base = service(baselineClient, 1).reconcile(NIGHT, false, null);
      long baselineMs = (System.nanoTime() - t2) / 1_000_000;

      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "budgets");
      r.put("nodePools", pools);
      r.put("workloads", workloads);
      r.put("latencyMs", latencyMs);
      r.put("status", first.status().name());
      r.put("objectsChanged", first.writes());
      r.put("failed", first.failed());
      r.put("requestsFirstRun", firstRequests);
      r.put("writesFirstRun", firstWrites);
      r.put("firstRunMs", firstMs);
      r.put("coldJvmFirstRunMs", coldMs);
      r.put("secondRunMs", secondMs);
      r.put("writesSecondRun", secondWrites);
      r.put("baselineSequentialMs", baselineMs);
      r.put("baselineObjectsChanged", base.writes());
      r.put("speedup", Math.round(10.0 * baselineMs / Math.max(1, firstMs)) / 10.0);
      r.put("targetFirstRunMs", 2000);
      r.put(
          "pass",
          first.status() == ScheduleOutcome.Status.RECONCILED
              && first.writes() == pools + workloads
              && firstMs <= 2000
              && secondWrites == 0
              && second.writes() == 0);
      return r;
    }
  }

  private static ScheduleService service(KubernetesClient client, int concurrency) {
    var settings = new ScheduleSettings("bench", "inline", false, concurrency, true);
    return ScheduleWiring.service(
        client,
        settings,
        PolicySource.inline(POLICY, "bench"),
        MetricsSink.NONE,
        EventPublisher.NONE,
        Notifier.NONE,
        Clock.fixed(NIGHT, ZoneOffset.UTC));
  }

  /** NodePools and a mix of workloads: 70% Deployments, 20% StatefulSets, 5% HPAs, 5% KEDA. */
  static void seed(SimCluster cluster, int pools, int workloads) {
    var o = cluster.objects();
    var labels = Map.of("bench", "scheduled");
    for (int i = 0; i < pools; i++) {
      o.create(
          SimObjects.nodePool("gpu-" + i, Map.of("bench", "gpu"), "[{\"nodes\":\"10%\"}]", "30m"));
    }
    for (int i = 0; i < workloads; i++) {
      String ns = "team-" + (i % 10);
      int kind = i % 20;
      if (kind < 14) {
        o.create(SimObjects.deployment(ns, "svc-" + i, 2 + i % 5, labels, SimObjects.SEEDED));
      } else if (kind < 18) {
        o.create(SimObjects.statefulSet(ns, "db-" + i, 3, labels, SimObjects.SEEDED));
      } else if (kind == 18) {
        o.create(SimObjects.hpa(ns, "hpa-" + i, "unscheduled-" + i, 2, 6, labels));
      } else {
        o.create(SimObjects.scaledObject(ns, "so-" + i, "unscheduled-" + i, null, labels));
      }
    }
  }
}

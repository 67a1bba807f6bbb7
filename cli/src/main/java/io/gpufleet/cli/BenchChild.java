package io.gpufleet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.MetricsSink;
import io.gpufleet.drain.DrainHandler;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.sim.SimTime;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The function side of a benchmark, in its own JVM (started by {@link Confinement} inside the CPU
 * share of a Lambda memory size): it talks to the servers the bench process hosts, by URL, and
 * prints its figures as one JSON line last. {@code @NAME} lines ask the bench process to act
 * between phases (it answers with an empty line on stdin).
 */
public final class BenchChild {
  private static BufferedReader stdin;
  private static final PrintStream OUT = System.out;

  private BenchChild() {}

  public static void main(String[] args) throws Exception {
    stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    JsonNode input = Json.MAPPER.readTree(stdin.readLine());
    var err = System.err;
    Map<String, Object> result =
        switch (args[0]) {
          case "where" -> new LinkedHashMap<>(Map.of("role", "where"));
          case "drain" -> drain(input, err);
          case "burst" -> burst(input, err);
          case "budgets" -> BudgetsBench.child(input, err);
          case "preflight" -> PreflightBench.child(input, err);
          case "cost" ->
              new LinkedHashMap<>(
                  CostBench.measure(
                      input.get("instances").asInt(), input.get("pods").asInt(), err));
          default -> throw new IllegalArgumentException("unknown role " + args[0]);
        };
    result.put("childCgroup", CpuCgroup.membership("self").orElse(null));
    result.put("childAvailableProcessors", Runtime.getRuntime().availableProcessors());
    result.put("childMaxHeapMiB", Runtime.getRuntime().maxMemory() >> 20);
    OUT.println(Json.write(result));
    OUT.flush();
    System.exit(0);
  }

  /** Lets the bench process act (on its servers) before this process goes on. */
  static void mark(String name) throws java.io.IOException {
    OUT.println("@" + name);
    OUT.flush();
    if (stdin.readLine() == null) {
      throw new IllegalStateException("the bench process went away at @" + name);
    }
  }

  static KubernetesClient client(JsonNode input) {
    return client(input, "url");
  }

  static KubernetesClient client(JsonNode input, String field) {
    return KubeClients.forUrl(input.get(field).asText(), Optional.empty(), () -> "sim-token");
  }

  // ---------------------------------------------------------------- drain

  /** Warm on a 3-pod node, drain the measured node, then the client-go style baseline. */
  static Map<String, Object> drain(JsonNode input, PrintStream err) throws Exception {
    int pods = input.get("pods").asInt();
    var time = SimTime.realTime();
    try (KubernetesClient client = client(input)) {
      var service = BenchCommand.service(client, time);
      service.handle(
          FixtureEvents.spot("warm", BenchCommand.WARM_INSTANCE, time.now()),
          time.now().plusSeconds(170));
      err.printf("bench drain: %d pods...%n", pods);
      DrainOutcome o =
          service
              .handle(
                  FixtureEvents.spot("bench", BenchCommand.BENCH_INSTANCE, time.now()),
                  time.now().plusSeconds(170))
              .get(0);
      boolean baseline = input.path("baseline").asBoolean(true);
      long baselineIssued = 0;
      if (baseline) {
        err.println("bench drain: baseline (sequential evictions at QPS 5 / burst 10)...");
        baselineIssued = BenchCommand.sequentialBaseline(client, "baseline-node", pods);
      }
      var r = new LinkedHashMap<String, Object>();
      BenchCommand.putDrainFigures(r, o, baselineIssued, err);
      if (!baseline) {
        r.put("baselineEvictionsIssuedMs", null);
        r.put("speedup", null);
      }
      return r;
    }
  }

  // ---------------------------------------------------------------- drain-burst

  /** N events at once through the handler, one platform thread each; then one after another. */
  static Map<String, Object> burst(JsonNode input, PrintStream err) throws Exception {
    int events = input.get("events").asInt();
    var time = SimTime.realTime();
    var others = new ArrayList<KubernetesClient>();
    try (KubernetesClient client = client(input);
        AutoCloseable closeOthers = () -> others.forEach(KubernetesClient::close)) {
      var service = BenchCommand.service(client, time);
      if (input.path("otherUrls").size() > 0) {
        // several clusters: the burst's own cluster is the last one routed to
        var kubes = new java.util.LinkedHashMap<String, KubernetesClient>();
        for (var url : input.path("otherUrls")) {
          var other = KubeClients.forUrl(url.asText(), Optional.empty(), () -> "sim-token");
          others.add(other);
          kubes.put("other-" + others.size(), other);
        }
        kubes.put("bench", client);
        service =
            io.gpufleet.drain.DrainWiring.routed(
                kubes,
                new io.gpufleet.drain.ClusterList(
                    List.copyOf(kubes.keySet()),
                    io.gpufleet.drain.ClusterList.DEFAULT_NEGATIVE_TTL,
                    io.gpufleet.drain.ClusterList.DEFAULT_NEGATIVE_MAX),
                io.gpufleet.drain.DrainSettings.defaults("other-1"),
                MetricsSink.NONE,
                io.gpufleet.core.outcome.EventPublisher.NONE,
                io.gpufleet.core.outcome.Notifier.NONE,
                time.clock(),
                time.sleeper());
      }
      var handler = new DrainHandler(service, MetricsSink.NONE, time.clock());
      SimulateCommand.invoke(
          handler,
          FixtureEvents.spotJson("warm", BenchCommand.WARM_INSTANCE, time.now())
              .getBytes(StandardCharsets.UTF_8));
      err.printf("bench drain-burst: %d events at once...%n", events);
      Instant start = time.now();
      var outcomes = new ArrayList<DrainOutcome>();
      // one platform thread per invocation, as Lambda gives every concurrent event its own
      // environment (virtual threads would queue CPU-bound handlers behind each other)
      try (var pool = Executors.newFixedThreadPool(events)) {
        var futures = new ArrayList<Future<List<DrainOutcome>>>();
        for (int i = 0; i < events; i++) {
          byte[] payload =
              FixtureEvents.spotJson("burst-" + i, BenchCommand.instanceId(i), start)
                  .getBytes(StandardCharsets.UTF_8);
          futures.add(pool.submit(() -> SimulateCommand.invoke(handler, payload)));
        }
        for (var f : futures) {
          outcomes.addAll(f.get());
        }
      }
      long allCordonedMs = 0;
      long allGoneMs = 0;
      long lastReceivedMs = 0;
      long slowestCordonMs = 0;
      for (var o : outcomes) {
        long recv = Duration.between(start, o.receivedAt()).toMillis();
        allCordonedMs = Math.max(allCordonedMs, recv + o.timings().cordonedMs());
        lastReceivedMs = Math.max(lastReceivedMs, recv);
        slowestCordonMs = Math.max(slowestCordonMs, o.timings().cordonedMs());
        if (o.timings().allGoneMs() != null) {
          allGoneMs = Math.max(allGoneMs, recv + o.timings().allGoneMs());
        }
      }
      long drained =
          outcomes.stream().filter(o -> o.status() == DrainOutcome.Status.DRAINED).count();
      err.println("bench drain-burst: baseline (one event after another, cordon only)...");
      var seqService = BenchCommand.service(client, time);
      Instant seqStart = time.now();
      for (int i = 0; i < events; i++) {
        seqService.handle(
            FixtureEvents.event(
                DrainKind.REBALANCE, "seq-" + i, BenchCommand.instanceId(100_000 + i), time.now()),
            time.now().plusSeconds(170));
      }
      long baselineCordonedMs = Duration.between(seqStart, time.now()).toMillis();
      var r = new LinkedHashMap<String, Object>();
      r.put("outcomes", outcomes.size());
      r.put("drained", drained);
      r.put("allCordonedMs", allCordonedMs);
      r.put("lastReceivedMs", lastReceivedMs);
      r.put("slowestCordonMs", slowestCordonMs);
      r.put("allGoneMs", allGoneMs);
      r.put("baselineSequentialCordonMs", baselineCordonedMs);
      return r;
    }
  }
}

package io.gpufleet.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.scenario.SyntheticEvents;
import io.gpufleet.sim.SimTime;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

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
          case "drain-first" -> RestoredDrainBench.child(input, err);
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
    return client(input, "url", "ca");
  }

  /**
   * A client of the API server at {@code input[urlField]}, trusting {@code input[caField]} if any.
   */
  static KubernetesClient client(JsonNode input, String urlField, String caField) {
    return KubeClients.forUrl(
        input.get(urlField).asText(),
        Optional.ofNullable(input.get(caField)).map(JsonNode::asText),
        () -> "sim-token");
  }

  // ---------------------------------------------------------------- drain

  /** Warm on a 3-pod node, drain the measured node, then the client-go style baseline. */
  static Map<String, Object> drain(JsonNode input, PrintStream err) throws Exception {
    int pods = input.get("pods").asInt();
    var time = SimTime.realTime();
    try (KubernetesClient client = client(input)) {
      var service = DrainBench.service(client, time);
      service.handle(
          SyntheticEvents.spot("warm", DrainBench.WARM_INSTANCE, time.now()),
          time.now().plusSeconds(170));
      err.printf("bench drain: %d pods...%n", pods);
      DrainOutcome o =
          service
              .handle(
                  SyntheticEvents.spot("bench", DrainBench.BENCH_INSTANCE, time.now()),
                  time.now().plusSeconds(170))
              .get(0);
      boolean baseline = input.path("baseline").asBoolean(true);
      long baselineIssued = 0;
      if (baseline) {
        err.println("bench drain: baseline (sequential evictions at QPS 5 / burst 10)...");
        baselineIssued = DrainBench.sequentialBaseline(client, "baseline-node", pods);
      }
      var r = new LinkedHashMap<String, Object>();
      DrainBench.putDrainFigures(r, o, baselineIssued, err);
      if (!baseline) {
        r.put("baselineEvictionsIssuedMs", null);
        r.put("speedup", null);
      }
      return r;
    }
  }

  // ---------------------------------------------------------------- drain-burst

  /**
   * N events on E simulated Lambda environments, each with its own handler, client and caches
   * ({@link BurstEnvironments}); then the baseline, one event after another.
   */
  static Map<String, Object> burst(JsonNode input, PrintStream err) throws Exception {
    var clusters = new java.util.LinkedHashMap<String, String>();
    input
        .get("clusters")
        .fields()
        .forEachRemaining(e -> clusters.put(e.getKey(), e.getValue().asText()));
    var cas = new java.util.LinkedHashMap<String, String>();
    input.path("cas").fields().forEachRemaining(e -> cas.put(e.getKey(), e.getValue().asText()));
    return BurstEnvironments.run(
        new BurstEnvironments.Target(
            clusters,
            cas,
            input.hasNonNull("ec2") ? java.net.URI.create(input.get("ec2").asText()) : null),
        input.get("events").asInt(),
        input.get("environments").asInt(),
        input.path("allAtOnce").asBoolean(false)
            ? BurstEnvironments.Schedule.allAtOnce(input.get("environments").asInt())
            : BurstEnvironments.Schedule.inWaves(input.get("waveWidth").asInt()),
        input.path("restored").asBoolean(false),
        err);
  }
}

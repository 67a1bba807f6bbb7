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
import io.gpufleet.drain.DrainHandler;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.DrainWiring;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

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

  static final String NAMES = "drain [--real], drain-burst, cold, preflight, budgets, cost";

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
                "regions"),
            Set.of("real"));
    Map<String, Object> result =
        switch (name) {
          case "drain" ->
              args.flag("real")
                  ? new RealDrainBench(err).run(args)
                  : drain(
                      (int) args.number("pods", 110, 1, 5000),
                      (int) args.number("latency-ms", 20, 0, 1000));
          case "drain-burst" ->
              burst(
                  (int) args.number("events", 200, 1, 2000),
                  (int) args.number("pods", 30, 0, 500),
                  (int) args.number("latency-ms", 20, 0, 1000));
          case "cold" -> cold((int) args.number("runs", 3, 1, 20));
          case "preflight" ->
              new PreflightBench(err)
                  .run(
                      (int) args.number("latency-ms", 100, 0, 1000),
                      (int) args.number("regions", 17, 1, 17));
          case "cost" ->
              new CostBench(err)
                  .run(
                      (int) args.number("instances", 10_000, 1, 100_000),
                      (int) args.number("pods", 100_000, 0, 1_000_000));
          case "budgets" ->
              new BudgetsBench(err)
                  .run(
                      (int) args.number("pools", 50, 1, 500),
                      (int) args.number("workloads", 500, 1, 5000),
                      (int) args.number("latency-ms", 10, 0, 1000));
          default ->
              throw new ConfigException("bench: unknown benchmark '" + name + "' (" + NAMES + ")");
        };
    out.println(Json.write(result));
    return Boolean.TRUE.equals(result.get("pass")) ? 0 : 1;
  }

  // ---------------------------------------------------------------- drain

  private Map<String, Object> drain(int pods, int latencyMs) throws Exception {
    var time = SimTime.realTime();
    try (var cluster = SimCluster.start(time);
        KubernetesClient client = cluster.newClient()) {
      seedNode(cluster, "bench-node", "i-0be0c0000000000a1", pods);
      seedNode(cluster, "baseline-node", "i-0be0c0000000000b2", pods);
      cluster.setLatency(Duration.ofMillis(latencyMs));
      var service = service(client, time);
      // warm the JVM paths once on a tiny node so the measurement is of the drain, not class
      // loading
      seedNode(cluster, "warm-node", "i-0be0c0000000000c3", 3);
      service.handle(
          FixtureEvents.spot("warm", "i-0be0c0000000000c3", time.now()),
          time.now().plusSeconds(170));

      err.printf("bench drain: %d pods, %d ms API latency...%n", pods, latencyMs);
      DrainOutcome o =
          service
              .handle(
                  FixtureEvents.spot("bench", "i-0be0c0000000000a1", time.now()),
                  time.now().plusSeconds(170))
              .get(0);
      err.println("bench drain: baseline (sequential evictions at QPS 5 / burst 10)...");
      long baselineIssued = sequentialBaseline(client, "baseline-node", pods);

      var t = o.timings();
      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "drain");
      r.put("pods", pods);
      r.put("latencyMs", latencyMs);
      double speedup = putDrainFigures(r, o, baselineIssued, err);
      r.put("targetEvictionsIssuedMs", 1000);
      r.put("targetSpeedup", 15);
      r.put(
          "pass",
          o.status() == DrainOutcome.Status.DRAINED
              && o.podsEvicted().size() == pods
              && t.evictionsIssuedMs() <= 1000
              && speedup >= 15);
      return r;
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

  private Map<String, Object> burst(int events, int podsPerNode, int latencyMs) throws Exception {
    var time = SimTime.realTime();
    try (var cluster = SimCluster.start(time);
        KubernetesClient client = cluster.newClient()) {
      err.printf("bench drain-burst: seeding %d nodes x %d pods...%n", events, podsPerNode);
      for (int i = 0; i < events; i++) {
        seedNode(cluster, "burst-" + i, instanceId(i), podsPerNode);
      }
      for (int i = 0; i < events; i++) {
        seedNode(cluster, "seq-" + i, instanceId(100_000 + i), 0);
      }
      cluster.setLatency(Duration.ofMillis(latencyMs));
      var metrics = MetricsSink.NONE;
      var service = service(client, time);
      var handler = new DrainHandler(service, metrics, time.clock());
      // warm the JVM paths once (class loading is what `bench cold` measures, not this)
      seedNode(cluster, "warm-node", "i-0be0c0000000000c3", 3);
      SimulateCommand.invoke(
          handler,
          FixtureEvents.spotJson("warm", "i-0be0c0000000000c3", time.now())
              .getBytes(StandardCharsets.UTF_8));
      err.printf("bench drain-burst: %d events at once, %d ms API latency...%n", events, latencyMs);
      Instant start = time.now();
      var outcomes = new ArrayList<DrainOutcome>();
      // one platform thread per invocation, as Lambda gives every concurrent event its own
      // environment (virtual threads would queue CPU-bound handlers behind each other)
      try (var pool = Executors.newFixedThreadPool(events)) {
        var futures = new ArrayList<Future<List<DrainOutcome>>>();
        for (int i = 0; i < events; i++) {
          byte[] payload =
              FixtureEvents.spotJson("burst-" + i, instanceId(i), start)
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
      long podsLeft = 0;
      for (int i = 0; i < events; i++) {
        podsLeft +=
            cluster.podsOn("burst-" + i).stream()
                .filter(
                    p -> !"DaemonSet".equals(p.getMetadata().getOwnerReferences().get(0).getKind()))
                .count();
      }
      err.println("bench drain-burst: baseline (one event after another, cordon only)...");
      var seqService = service(client, time);
      Instant seqStart = time.now();
      for (int i = 0; i < events; i++) {
        seqService.handle(
            FixtureEvents.event(
                DrainKind.REBALANCE, "seq-" + i, instanceId(100_000 + i), time.now()),
            time.now().plusSeconds(170));
      }
      long baselineCordonedMs = Duration.between(seqStart, time.now()).toMillis();

      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "drain-burst");
      r.put("events", events);
      r.put("podsPerNode", podsPerNode);
      r.put("latencyMs", latencyMs);
      r.put("outcomes", outcomes.size());
      r.put("drained", drained);
      r.put("podsLeft", podsLeft);
      r.put("allCordonedMs", allCordonedMs);
      r.put("lastReceivedMs", lastReceivedMs);
      r.put("slowestCordonMs", slowestCordonMs);
      r.put("allGoneMs", allGoneMs);
      r.put("baselineSequentialCordonMs", baselineCordonedMs);
      r.put("speedup", Math.round(10.0 * baselineCordonedMs / Math.max(1, allCordonedMs)) / 10.0);
      r.put("targetAllCordonedMs", 2000);
      r.put(
          "pass",
          outcomes.size() == events && drained == events && podsLeft == 0 && allCordonedMs <= 2000);
      return r;
    }
  }

  private static String instanceId(int i) {
    return String.format("i-0%016x", 0xb0000000L + i);
  }

  // ---------------------------------------------------------------- cold

  /** The JVM flags template.yaml gives the function (JAVA_TOOL_OPTIONS). */
  static final List<String> LAMBDA_JVM_FLAGS =
      List.of("-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  private Map<String, Object> cold(int runs) throws Exception {
    Path jar = lambdaJar();
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path cds = Files.createTempFile("gpufleet-drain", ".jsa");
    Files.delete(cds);
    var time = SimTime.realTime();
    try (var cluster = SimCluster.start(time)) {
      var coldMs = new ArrayList<Long>();
      var cdsMs = new ArrayList<Long>();
      var baselineMs = new ArrayList<Long>();
      String lastStatus = null;
      // training run for the AppCDS variant (reported for information: Lambda cannot use an
      // archive made by another JVM build; SnapStart is the production answer)
      coldRun(javaBin, jar, cluster, time, 899, List.of("-XX:ArchiveClassesAtExit=" + cds));
      for (int i = 0; i < runs; i++) {
        var plain = coldRun(javaBin, jar, cluster, time, 900 + i, List.of());
        lastStatus = plain.status();
        coldMs.add(plain.ms());
        if (Files.exists(cds)) {
          cdsMs.add(
              coldRun(javaBin, jar, cluster, time, 950 + i, List.of("-XX:SharedArchiveFile=" + cds))
                  .ms());
        }
        var cmd = new ArrayList<>(List.of(javaBin));
        cmd.addAll(LAMBDA_JVM_FLAGS);
        cmd.add("-version");
        long b0 = System.nanoTime();
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start()
            .waitFor();
        baselineMs.add((System.nanoTime() - b0) / 1_000_000);
      }
      Files.deleteIfExists(cds);
      long median = median(coldMs);
      long jarBytes = Files.size(jar);
      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "cold");
      r.put("runs", runs);
      r.put("java", Runtime.version().toString());
      r.put("jvmFlags", String.join(" ", LAMBDA_JVM_FLAGS));
      r.put("firstEventHandledMsMedian", median);
      r.put("firstEventHandledMs", coldMs);
      r.put("withAppCdsMsMedian", cdsMs.isEmpty() ? null : median(cdsMs));
      r.put("baselineJvmStartMsMedian", median(baselineMs));
      r.put("status", lastStatus);
      r.put("jarBytes", jarBytes);
      r.put("jarMiB", Math.round(jarBytes / 1048576.0 * 100) / 100.0);
      r.put("targetMs", 1500);
      r.put("targetMiB", 25);
      r.put(
          "pass", "DRAINED".equals(lastStatus) && median <= 1500 && jarBytes <= 25L * 1024 * 1024);
      return r;
    }
  }

  private static long median(List<Long> values) {
    var sorted = new ArrayList<>(values);
    sorted.sort(Long::compare);
    return sorted.get(sorted.size() / 2);
  }

  record ColdRun(long ms, String status) {}

  /** One fresh JVM running the deployment jar on one Spot event against the simulated cluster. */
  private static ColdRun coldRun(
      String javaBin, Path jar, SimCluster cluster, SimTime time, int n, List<String> extraFlags)
      throws Exception {
    String instance = instanceId(n);
    seedNode(cluster, "cold-" + n, instance, 10);
    Path event = Files.createTempFile("gpufleet-cold", ".json");
    Files.writeString(event, FixtureEvents.spotJson("cold-" + n, instance, time.now()));
    var cmd = new ArrayList<>(List.of(javaBin));
    cmd.addAll(LAMBDA_JVM_FLAGS);
    cmd.addAll(extraFlags);
    cmd.addAll(List.of("-jar", jar.toString(), event.toString()));
    var pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("CLUSTER_NAME", "bench");
    pb.environment().put("KUBE_API_URL", cluster.url());
    pb.environment().put("AWS_REGION", "us-east-1");
    pb.environment().put("POWERTOOLS_LOG_LEVEL", "WARN");
    pb.environment().remove("OUTCOME_EVENT_BUS");
    pb.environment().remove("NOTIFY_TOPIC_ARN");
    pb.environment().remove("SLACK_WEBHOOK_SECRET");
    pb.environment().remove("SLACK_WEBHOOK_URL");
    long start = System.nanoTime();
    var p = pb.start();
    String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("cold run did not finish within 60 s");
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    Files.deleteIfExists(event);
    if (p.exitValue() != 0 || stdout.indexOf('[') < 0) {
      throw new IllegalStateException("cold run exited " + p.exitValue() + ": " + stdout);
    }
    var outcomes = Json.MAPPER.readTree(stdout.substring(stdout.indexOf('[')));
    return new ColdRun(ms, outcomes.get(0).path("status").asText());
  }

  private static Path lambdaJar() throws IOException {
    Path dir = Main.home().resolve("functions/interruption-drain/target");
    try (var s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith("-lambda.jar"))
          .findFirst()
          .orElseThrow(
              () ->
                  new ConfigException(
                      "bench cold: no Lambda jar in "
                          + dir
                          + "; build with ./gpufleet (it builds on first use)"));
    } catch (java.nio.file.NoSuchFileException e) {
      throw new ConfigException(
          "bench cold: " + dir + " does not exist; build with ./gpufleet first");
    }
  }

  // ---------------------------------------------------------------- shared

  private static DrainService service(KubernetesClient client, SimTime time) {
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

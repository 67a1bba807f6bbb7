package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.drain.ClusterList;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.InstanceLookupPort;
import io.gpufleet.drain.aws.Ec2InstancesAdapter;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.wiring.DrainHandler;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.sim.SimTime;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * {@code bench drain-burst} as Lambda runs it: a burst of N events lands on E execution
 * environments (E = the events, at most the function's reserved concurrency), each with its own
 * handler, Kubernetes client and caches, built by the environment's own init when the burst reaches
 * it; an environment handles its events one after another, environments run in parallel. Nothing is
 * shared between environments but the JVM's loaded classes (what a SnapStart snapshot carries).
 */
final class BurstEnvironments {
  private BurstEnvironments() {}

  /**
   * What the burst runs against: the simulated clusters (name → API server URL, in the stack's
   * order; the burst's nodes are in the last) and the simulated EC2 endpoint (null: no EC2 lookup).
   */
  record Target(Map<String, String> clusters, URI ec2) {
    Target {
      clusters = Collections.unmodifiableMap(new LinkedHashMap<>(clusters));
    }

    static Target single(String url) {
      return new Target(Map.of("bench", url), null);
    }
  }

  /**
   * One execution environment: what the function's init builds, owned by this environment. {@code
   * client} is the burst cluster's.
   */
  record Environment(
      KubernetesClient client,
      List<KubernetesClient> all,
      DrainService service,
      DrainHandler handler)
      implements AutoCloseable {
    static Environment init(Target target, SimTime time) {
      var kubes = new LinkedHashMap<String, KubernetesClient>();
      // its own HTTP clients
      target
          .clusters()
          .forEach(
              (name, url) ->
                  kubes.put(name, KubeClients.forUrl(url, Optional.empty(), () -> "sim-token")));
      var names = List.copyOf(kubes.keySet());
      KubernetesClient burstClient = kubes.get(names.get(names.size() - 1));
      DrainService service = // its own gateways and caches
          names.size() == 1
              ? BenchCommand.service(burstClient, time)
              : DrainWiring.routed(
                  kubes,
                  ClusterList.of(names.toArray(String[]::new)),
                  DrainSettings.defaults(names.get(0)),
                  MetricsPort.NONE,
                  EventPublisherPort.NONE,
                  NotifierPort.NONE,
                  time.clock(),
                  time.sleeper());
      if (target.ec2() != null) {
        // the Lambda's EC2 client: SigV4-signed DescribeInstances to the simulated EC2
        InstanceLookupPort ec2 =
            new Ec2InstancesAdapter(
                target.ec2(),
                Region.US_EAST_1,
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create("AKIDSIMULATED", "simulated")),
                UrlConnectionHttpClient.create());
        InstanceLookupPort timed =
            id -> {
              long t0 = System.nanoTime();
              try {
                return ec2.describe(id);
              } finally {
                EC2_LOOKUP_NANOS.add(System.nanoTime() - t0);
              }
            };
        service.lookUpInstancesWith(InstanceLookupPort.remembering(timed, 4096));
      }
      return new Environment(
          burstClient,
          List.copyOf(kubes.values()),
          service,
          new DrainHandler(service, MetricsPort.NONE, time.clock()));
    }

    @Override
    public void close() {
      all.forEach(KubernetesClient::close);
    }
  }

  /** How long each DescribeInstances of the burst took (the lookup phase, per phase figures). */
  static final java.util.Queue<Long> EC2_LOOKUP_NANOS =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  /**
   * The events each environment handles, in order. Lambda gives a waiting event to whichever
   * environment is free; with events of equal work that is event {@code i} to environment {@code i
   * mod E}.
   */
  static List<List<Integer>> assign(int events, int environments) {
    if (events < 0 || environments < 1) {
      throw new IllegalArgumentException("events >= 0 and environments >= 1");
    }
    var plan = new ArrayList<List<Integer>>();
    for (int e = 0; e < Math.min(events, environments); e++) {
      plan.add(new ArrayList<>());
    }
    for (int i = 0; i < events; i++) {
      plan.get(i % environments).add(i);
    }
    return plan;
  }

  /**
   * One invocation: the event, what the handler returned (nothing when it threw: {@code error} says
   * what, as Lambda would report the invocation failed and retry it), how long it took.
   */
  record Invocation(int event, List<DrainOutcome> outcomes, long handledNanos, String error) {}

  /** One environment's run: its init, then its invocations in order. */
  record EnvironmentRun(int index, Environment env, long initNanos, List<Invocation> invocations) {
    /** The burst cluster's client of this environment (null when there is no environment). */
    KubernetesClient client() {
      return env == null ? null : env.client();
    }
  }

  /**
   * The burst against the server at {@code url}: node {@code burst-i} (instance {@link
   * BenchCommand#instanceId}(i)) gets event i; then the baseline, one environment cordoning {@code
   * seq-i} (instance id 100 000 + i) for each event one after another. A warm-up environment drains
   * {@link BenchCommand#WARM_INSTANCE} first and is closed (classes loaded, as in a snapshot).
   */
  static Map<String, Object> run(String url, int events, int environments, PrintStream err)
      throws Exception {
    return run(Target.single(url), events, environments, err);
  }

  static Map<String, Object> run(Target url, int events, int environments, PrintStream err)
      throws Exception {
    var time = SimTime.realTime();
    try (var warm = Environment.init(url, time)) {
      SimulateCommand.invoke(
          warm.handler(),
          FixtureEvents.spotJson("warm", BenchCommand.WARM_INSTANCE, time.now())
              .getBytes(StandardCharsets.UTF_8));
    }
    EC2_LOOKUP_NANOS.clear();
    var plan = assign(events, environments);
    err.printf(
        "bench drain-burst: %d events at once on %d environments (own handler, client, caches)...%n",
        events, plan.size());
    Instant start = time.now();
    var runs = new ArrayList<EnvironmentRun>();
    // one platform thread per environment: an environment's CPU-bound work does not queue behind
    // another's (virtual threads would)
    try (var pool = Executors.newFixedThreadPool(Math.max(1, plan.size()))) {
      var futures = new ArrayList<Future<EnvironmentRun>>();
      for (int k = 0; k < plan.size(); k++) {
        int index = k;
        List<Integer> mine = plan.get(k);
        futures.add(pool.submit(() -> runEnvironment(index, mine, url, time, start)));
      }
      for (var f : futures) {
        runs.add(f.get());
      }
    }
    var r = figures(runs, start);
    r.put("ec2LookupMs", spread(EC2_LOOKUP_NANOS.stream().map(n -> n / 1_000_000).toList()));
    for (var run : runs) {
      run.env().close();
    }

    err.println("bench drain-burst: baseline (one environment, one event after another, cordon)");
    try (var seq = Environment.init(url, time)) {
      Instant seqStart = time.now();
      for (int i = 0; i < events; i++) {
        seq.service()
            .handle(
                FixtureEvents.event(
                    DrainKind.REBALANCE,
                    "seq-" + i,
                    BenchCommand.instanceId(100_000 + i),
                    time.now()),
                time.now().plusSeconds(170));
      }
      r.put("baselineSequentialCordonMs", Duration.between(seqStart, time.now()).toMillis());
    }
    return r;
  }

  private static EnvironmentRun runEnvironment(
      int index, List<Integer> events, Target url, SimTime time, Instant start) throws Exception {
    long i0 = System.nanoTime();
    var env = Environment.init(url, time);
    long initNanos = System.nanoTime() - i0;
    var invocations = new ArrayList<Invocation>();
    for (int e : events) {
      byte[] payload =
          FixtureEvents.spotJson("burst-" + e, BenchCommand.instanceId(e), start)
              .getBytes(StandardCharsets.UTF_8);
      long h0 = System.nanoTime();
      try {
        var outcomes = SimulateCommand.invoke(env.handler(), payload);
        invocations.add(new Invocation(e, outcomes, System.nanoTime() - h0, null));
      } catch (RuntimeException | java.io.IOException failed) {
        // a failed invocation does not stop the environment: the next event still comes
        invocations.add(
            new Invocation(e, List.of(), System.nanoTime() - h0, String.valueOf(failed)));
      }
    }
    return new EnvironmentRun(index, env, initNanos, invocations);
  }

  /** The burst's figures: per-environment init apart from per-event handling. */
  static Map<String, Object> figures(List<EnvironmentRun> runs, Instant start) {
    var outcomes = new ArrayList<DrainOutcome>();
    var initMs = new ArrayList<Long>();
    var handledMs = new ArrayList<Long>();
    var clients = Collections.newSetFromMap(new IdentityHashMap<KubernetesClient, Boolean>());
    int mostEvents = 0;
    int failed = 0;
    String firstFailure = null;
    for (var run : runs) {
      clients.add(run.client());
      initMs.add(run.initNanos() / 1_000_000);
      mostEvents = Math.max(mostEvents, run.invocations().size());
      for (var inv : run.invocations()) {
        handledMs.add(inv.handledNanos() / 1_000_000);
        outcomes.addAll(inv.outcomes());
        if (inv.error() != null) {
          failed++;
          firstFailure =
              firstFailure == null ? "event " + inv.event() + ": " + inv.error() : firstFailure;
        }
      }
    }
    long allCordonedMs = 0;
    long allGoneMs = 0;
    long lastReceivedMs = 0;
    long slowestCordonMs = 0;
    for (var o : outcomes) {
      long recv = Duration.between(start, o.receivedAt()).toMillis();
      if (o.timings().cordonedMs() != null) {
        allCordonedMs = Math.max(allCordonedMs, recv + o.timings().cordonedMs());
        slowestCordonMs = Math.max(slowestCordonMs, o.timings().cordonedMs());
      }
      lastReceivedMs = Math.max(lastReceivedMs, recv);
      if (o.timings().allGoneMs() != null) {
        allGoneMs = Math.max(allGoneMs, recv + o.timings().allGoneMs());
      }
    }
    var r = new LinkedHashMap<String, Object>();
    r.put("environments", runs.size());
    r.put("distinctClients", clients.size());
    r.put("mostEventsInOneEnvironment", mostEvents);
    r.put("failedInvocations", failed);
    r.put("firstFailure", firstFailure);
    r.put("outcomes", outcomes.size());
    r.put(
        "drained",
        outcomes.stream().filter(o -> o.status() == DrainOutcome.Status.DRAINED).count());
    r.put("allCordonedMs", allCordonedMs);
    r.put("lastReceivedMs", lastReceivedMs);
    r.put("slowestCordonMs", slowestCordonMs);
    r.put("allGoneMs", allGoneMs);
    r.put("environmentInitMs", spread(initMs));
    r.put("eventHandlingMs", spread(handledMs));
    return r;
  }

  /** min, median, max and the sum (CPU-bound init summed is what the host had to find). */
  static Map<String, Long> spread(List<Long> values) {
    var sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    var m = new LinkedHashMap<String, Long>();
    if (sorted.isEmpty()) {
      return m;
    }
    m.put("min", sorted.get(0));
    m.put("median", sorted.get(sorted.size() / 2));
    m.put("max", sorted.get(sorted.size() - 1));
    m.put("sum", sorted.stream().mapToLong(Long::longValue).sum());
    return m;
  }
}

package io.gpufleet.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.drain.ClusterList;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.InstanceLookupPort;
import io.gpufleet.drain.aws.Ec2InstancesAdapter;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.wiring.DrainHandler;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.scenario.LocalInvoke;
import io.gpufleet.scenario.SyntheticEvents;
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
 * it; an environment handles its events one after another. Lambda runs all E at once, each on its
 * own share of a CPU; this host runs them in waves of W (a {@link Schedule}) so that each gets that
 * whole share, and counts every event from its own environment's start. Nothing is shared between
 * environments but the JVM's loaded and compiled classes (what a primed SnapStart snapshot carries;
 * the first wave's figures are reported apart).
 */
public final class BurstEnvironments {
  private BurstEnvironments() {}

  /**
   * What the burst runs against: the simulated clusters (name → API server URL, in the stack's
   * order; the burst's nodes are in the last), their CAs where they speak HTTPS, and the simulated
   * EC2 endpoint (null: no EC2 lookup).
   */
  record Target(Map<String, String> clusters, Map<String, String> cas, URI ec2) {
    Target {
      clusters = Collections.unmodifiableMap(new LinkedHashMap<>(clusters));
      cas = Map.copyOf(cas);
    }

    /** The cluster CA of {@code name} (base64 PEM) where its API server speaks HTTPS. */
    Optional<String> ca(String name) {
      return Optional.ofNullable(cas.get(name));
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
                  kubes.put(name, KubeClients.forUrl(url, target.ca(name), () -> "sim-token")));
      var names = List.copyOf(kubes.keySet());
      KubernetesClient burstClient = kubes.get(names.get(names.size() - 1));
      DrainService service = // its own gateways and caches
          names.size() == 1
              ? DrainBench.service(burstClient, time)
              : DrainWiring.routed(
                  kubes,
                  ClusterList.of(names.toArray(String[]::new)),
                  DrainWiring.Parts.of(DrainSettings.defaults(names.get(0))).timedBy(time));
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
   * How the burst's environments share this host. {@code waves}: {@code width} environments at a
   * time, each at its full Lambda CPU share (Lambda runs them all at once on separate CPUs; this
   * host cannot), every environment measured from its own start as from the burst instant. {@code
   * all-at-once}: every environment at once in one share capped by the host's CPUs (what the host
   * can hold, not what Lambda gives).
   */
  public record Schedule(boolean allAtOnce, int width) {
    public Schedule {
      if (width < 1) {
        throw new IllegalArgumentException("a schedule runs at least 1 environment at a time");
      }
    }

    public static Schedule inWaves(int width) {
      return new Schedule(false, width);
    }

    public static Schedule allAtOnce(int environments) {
      return new Schedule(true, environments);
    }

    String mode() {
      return allAtOnce ? "all-at-once" : "waves";
    }

    /** The environments of each wave (indices into the plan), in order. */
    List<List<Integer>> wavesOf(int environments) {
      return BurstEnvironments.waves(environments, allAtOnce ? Math.max(1, environments) : width);
    }
  }

  /**
   * W: how many Lambda environments of {@code share} this host runs at once, each with its whole
   * share: floor(host CPUs / the share's CPUs), at least 1 (computed in MB: 2 CPUs at 1,769 MB give
   * 2, at 3,008 MB give 1).
   */
  public static int waveWidth(int hostCpus, LambdaShare share) {
    if (hostCpus < 1) {
      throw new IllegalArgumentException("host CPUs >= 1, not " + hostCpus);
    }
    return Math.max(1, (int) ((long) hostCpus * LambdaShare.MB_PER_VCPU / share.memoryMb()));
  }

  /** Environments 0..environments-1 in waves of {@code width}, in order. */
  static List<List<Integer>> waves(int environments, int width) {
    if (environments < 0 || width < 1) {
      throw new IllegalArgumentException("environments >= 0 and width >= 1");
    }
    var waves = new ArrayList<List<Integer>>();
    for (int first = 0; first < environments; first += width) {
      var wave = new ArrayList<Integer>();
      for (int e = first; e < Math.min(environments, first + width); e++) {
        wave.add(e);
      }
      waves.add(List.copyOf(wave));
    }
    return waves;
  }

  /**
   * One invocation: the event, what the handler returned (nothing when it threw: {@code error} says
   * what, as Lambda would report the invocation failed and retry it), how long it took.
   */
  record Invocation(int event, List<DrainOutcome> outcomes, long handledNanos, String error) {}

  /**
   * One environment's run: its wave, its start (the burst instant as this environment sees it: init
   * begins there), its init, then its invocations in order.
   */
  record EnvironmentRun(
      int index,
      int wave,
      Instant start,
      Environment env,
      long initNanos,
      List<Invocation> invocations) {
    /** The burst cluster's client of this environment (null when there is no environment). */
    KubernetesClient client() {
      return env == null ? null : env.client();
    }

    /**
     * When {@code inv} had its node cordoned, in ms from this environment's start (its init and the
     * events it handled before included); null when no outcome was cordoned.
     */
    Long cordonedFromStartMs(Invocation inv) {
      Long latest = null;
      for (var o : inv.outcomes()) {
        if (o.timings() != null && o.timings().cordonedMs() != null) {
          long at = Duration.between(start, o.receivedAt()).toMillis() + o.timings().cordonedMs();
          latest = latest == null ? at : Math.max(latest, at);
        }
      }
      return latest;
    }
  }

  /**
   * The burst against {@code url} (its clusters, the burst's in the last): node {@code burst-i}
   * (instance {@link DrainBench#instanceId}(i)) gets event i; then the baseline, one environment
   * cordoning {@code seq-i} (instance id 100 000 + i) for each event one after another. A warm-up
   * environment drains {@link DrainBench#WARM_INSTANCE} first and is closed (classes loaded, as in
   * a snapshot).
   */
  static Map<String, Object> run(
      Target url, int events, int environments, Schedule schedule, PrintStream err)
      throws Exception {
    return run(url, events, environments, schedule, false, err);
  }

  /**
   * As above; {@code restored}: instead of the warm-up environment's drain against the bench's
   * cluster, the JVM runs what a SnapStart snapshot of the function holds: the beforeCheckpoint
   * priming (a complete drain against a loopback API server) and afterRestore's renewals.
   */
  static Map<String, Object> run(
      Target url,
      int events,
      int environments,
      Schedule schedule,
      boolean restored,
      PrintStream err)
      throws Exception {
    var time = SimTime.realTime();
    String priming = null;
    if (restored) {
      io.gpufleet.drain.wiring.DrainPriming.readOnlyPaths();
      priming = io.gpufleet.drain.wiring.DrainPriming.beforeSnapshot();
      io.gpufleet.core.lambda.SnapStart.afterRestore();
    } else {
      try (var warm = Environment.init(url, time)) {
        LocalInvoke.drain(
            warm.handler(),
            SyntheticEvents.spotJson("warm", DrainBench.WARM_INSTANCE, time.now())
                .getBytes(StandardCharsets.UTF_8));
      }
    }
    EC2_LOOKUP_NANOS.clear();
    var plan = assign(events, environments);
    var waves = schedule.wavesOf(plan.size());
    int widest = waves.stream().mapToInt(List::size).max().orElse(1);
    err.printf(
        "bench drain-burst: %d events on %d environments (own handler, client, caches), %s: %d"
            + " wave(s) of up to %d environment(s)...%n",
        events, plan.size(), schedule.mode(), waves.size(), widest);
    long wall0 = System.nanoTime();
    var runs = new ArrayList<EnvironmentRun>();
    // one platform thread per environment of a wave: an environment's CPU-bound work does not queue
    // behind another's (virtual threads would)
    try (var pool = Executors.newFixedThreadPool(widest)) {
      for (int w = 0; w < waves.size(); w++) {
        int wave = w;
        // Lambda starts every environment at the burst instant: each wave starts its own
        Instant waveStart = time.now();
        var futures = new ArrayList<Future<EnvironmentRun>>();
        for (int index : waves.get(w)) {
          List<Integer> mine = plan.get(index);
          futures.add(pool.submit(() -> runEnvironment(index, wave, mine, url, time, waveStart)));
        }
        var done = new ArrayList<EnvironmentRun>();
        for (var f : futures) {
          done.add(f.get());
        }
        done.forEach(run -> run.env().close());
        runs.addAll(done);
        if (waves.size() > 1 && ((w + 1) % 20 == 0 || w + 1 == waves.size())) {
          err.printf("bench drain-burst: %d of %d waves done%n", w + 1, waves.size());
        }
      }
    }
    long burstWallMs = (System.nanoTime() - wall0) / 1_000_000;
    var r = figures(runs);
    r.put(
        "primedBy",
        restored
            ? "SnapStart priming (a loopback drain: " + priming + "), then afterRestore"
            : "a warm-up environment's drain of " + DrainBench.WARM_INSTANCE);
    r.put("burstWallMs", burstWallMs);
    r.put("ec2LookupMs", spread(EC2_LOOKUP_NANOS.stream().map(n -> n / 1_000_000).toList()));

    err.println("bench drain-burst: baseline (one environment, one event after another, cordon)");
    try (var seq = Environment.init(url, time)) {
      Instant seqStart = time.now();
      for (int i = 0; i < events; i++) {
        seq.service()
            .handle(
                SyntheticEvents.event(
                    DrainKind.REBALANCE,
                    "seq-" + i,
                    DrainBench.instanceId(100_000 + i),
                    time.now()),
                time.now().plusSeconds(170));
      }
      r.put("baselineSequentialCordonMs", Duration.between(seqStart, time.now()).toMillis());
    }
    return r;
  }

  /**
   * One environment: init from {@code start}, then its events back to back, each sent at {@code
   * start} (the burst instant as this environment sees it), so an event's deadline and its queueing
   * behind the environment's earlier events count from there.
   */
  private static EnvironmentRun runEnvironment(
      int index, int wave, List<Integer> events, Target url, SimTime time, Instant start)
      throws Exception {
    long i0 = System.nanoTime();
    var env = Environment.init(url, time);
    long initNanos = System.nanoTime() - i0;
    var invocations = new ArrayList<Invocation>();
    for (int e : events) {
      byte[] payload =
          SyntheticEvents.spotJson("burst-" + e, DrainBench.instanceId(e), start)
              .getBytes(StandardCharsets.UTF_8);
      long h0 = System.nanoTime();
      try {
        var outcomes = LocalInvoke.drain(env.handler(), payload);
        invocations.add(new Invocation(e, outcomes, System.nanoTime() - h0, null));
      } catch (RuntimeException | java.io.IOException failed) {
        // a failed invocation does not stop the environment: the next event still comes
        invocations.add(
            new Invocation(e, List.of(), System.nanoTime() - h0, String.valueOf(failed)));
      }
    }
    return new EnvironmentRun(index, wave, start, env, initNanos, invocations);
  }

  /**
   * The burst's figures: every event counted from its environment's start (init included), the
   * slowest event and where it ran, the first wave apart from the later ones (which run in a JVM
   * warmed by the earlier waves), per-environment init apart from per-event handling.
   */
  static Map<String, Object> figures(List<EnvironmentRun> runs) {
    var outcomes = new ArrayList<DrainOutcome>();
    var handledMs = new ArrayList<Long>();
    var clients = Collections.newSetFromMap(new IdentityHashMap<KubernetesClient, Boolean>());
    var byWave = new java.util.TreeMap<Integer, List<EnvironmentRun>>();
    int mostEvents = 0;
    int failed = 0;
    String firstFailure = null;
    long allGoneMs = 0;
    long lastReceivedMs = 0;
    long slowestCordonMs = 0;
    Map<String, Object> slowest = null;
    long allCordonedMs = 0;
    for (var run : runs) {
      clients.add(run.client());
      byWave.computeIfAbsent(run.wave(), w -> new ArrayList<>()).add(run);
      mostEvents = Math.max(mostEvents, run.invocations().size());
      for (var inv : run.invocations()) {
        handledMs.add(inv.handledNanos() / 1_000_000);
        outcomes.addAll(inv.outcomes());
        if (inv.error() != null) {
          failed++;
          firstFailure =
              firstFailure == null ? "event " + inv.event() + ": " + inv.error() : firstFailure;
        }
        Long at = run.cordonedFromStartMs(inv);
        if (at != null && (slowest == null || at > allCordonedMs)) {
          allCordonedMs = at;
          slowest = new LinkedHashMap<>();
          slowest.put("event", inv.event());
          slowest.put("wave", run.wave());
          slowest.put("environment", run.index());
          slowest.put("environmentInitMs", run.initNanos() / 1_000_000);
          slowest.put("cordonedFromEnvironmentStartMs", at);
        }
        for (var o : inv.outcomes()) {
          long recv = Duration.between(run.start(), o.receivedAt()).toMillis();
          lastReceivedMs = Math.max(lastReceivedMs, recv);
          if (o.timings() != null && o.timings().cordonedMs() != null) {
            slowestCordonMs = Math.max(slowestCordonMs, o.timings().cordonedMs());
          }
          if (o.timings() != null && o.timings().allGoneMs() != null) {
            allGoneMs = Math.max(allGoneMs, recv + o.timings().allGoneMs());
          }
        }
      }
    }
    var cordonFromStart = new ArrayList<Long>();
    var issuedFromStart = new ArrayList<Long>();
    for (var run : runs) {
      for (var inv : run.invocations()) {
        for (var o : inv.outcomes()) {
          var t = o.timings();
          long recv = Duration.between(run.start(), o.receivedAt()).toMillis();
          if (t != null && t.cordonedMs() != null) {
            cordonFromStart.add(recv + t.cordonedMs());
          }
          if (t != null && t.evictionsIssuedMs() != null) {
            issuedFromStart.add(recv + t.evictionsIssuedMs());
          }
        }
      }
    }
    var perWave = new ArrayList<Long>();
    byWave.values().forEach(w -> perWave.add(waveFigures(w).allCordonedMs()));
    var r = new LinkedHashMap<String, Object>();
    r.put("environments", runs.size());
    r.put("waves", byWave.size());
    r.put("distinctClients", clients.size());
    r.put("mostEventsInOneEnvironment", mostEvents);
    r.put("failedInvocations", failed);
    r.put("firstFailure", firstFailure);
    r.put("outcomes", outcomes.size());
    r.put(
        "drained",
        outcomes.stream().filter(o -> o.status() == DrainOutcome.Status.DRAINED).count());
    r.put("allCordonedMs", allCordonedMs);
    // the peers' terms: per interruption, from the burst (its environment's start, init included)
    r.put("cordonedFromBurstMs", BurstPercentiles.of(cordonFromStart));
    r.put("evictionsIssuedFromBurstMs", BurstPercentiles.of(issuedFromStart));
    r.put("slowestEvent", slowest);
    r.put("lastReceivedMs", lastReceivedMs);
    r.put("slowestCordonMs", slowestCordonMs);
    r.put("allGoneMs", allGoneMs);
    var all = waveFigures(runs);
    r.put("environmentInitMs", all.initMs());
    r.put("eventHandlingMs", spread(handledMs));
    r.put("eventCordonedMs", all.cordonedMs());
    var first = byWave.isEmpty() ? null : byWave.firstEntry().getValue();
    r.put("firstWave", first == null ? null : waveFigures(first).describe());
    var later = new ArrayList<EnvironmentRun>();
    byWave.tailMap(byWave.isEmpty() ? 0 : byWave.firstKey(), false).values().forEach(later::addAll);
    r.put("laterWaves", later.isEmpty() ? null : waveFigures(later).describe());
    r.put("waveAllCordonedMs", spread(perWave));
    r.put("perWaveAllCordonedMs", perWave);
    return r;
  }

  /** The figures of a set of environments (a wave, the later waves, all). */
  record WaveFigures(
      int environments,
      int events,
      long allCordonedMs,
      Map<String, Long> initMs,
      Map<String, Long> cordonedMs) {
    Map<String, Object> describe() {
      var m = new LinkedHashMap<String, Object>();
      m.put("environments", environments);
      m.put("events", events);
      m.put("allCordonedMs", allCordonedMs);
      m.put("environmentInitMs", initMs);
      m.put("eventCordonedMs", cordonedMs);
      return m;
    }
  }

  static WaveFigures waveFigures(List<EnvironmentRun> runs) {
    var init = new ArrayList<Long>();
    var cordoned = new ArrayList<Long>();
    int events = 0;
    for (var run : runs) {
      init.add(run.initNanos() / 1_000_000);
      events += run.invocations().size();
      for (var inv : run.invocations()) {
        Long at = run.cordonedFromStartMs(inv);
        if (at != null) {
          cordoned.add(at);
        }
      }
    }
    long max = cordoned.stream().mapToLong(Long::longValue).max().orElse(0);
    return new WaveFigures(runs.size(), events, max, spread(init), spread(cordoned));
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

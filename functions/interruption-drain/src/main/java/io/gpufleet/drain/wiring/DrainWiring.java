package io.gpufleet.drain.wiring;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.OutcomeSinks;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.event.AccountFilter;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.lambda.Lazy;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.PowertoolsMetricsAdapter;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.core.time.TimeSource;
import io.gpufleet.drain.CapacityReservationPort;
import io.gpufleet.drain.ClusterDrain;
import io.gpufleet.drain.ClusterList;
import io.gpufleet.drain.ClusterRouter;
import io.gpufleet.drain.ContinuationPort;
import io.gpufleet.drain.DrainClusterPort;
import io.gpufleet.drain.DrainReporting;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.InstanceLookupPort;
import io.gpufleet.drain.LazyDrainClusterPort;
import io.gpufleet.drain.LifecyclePort;
import io.gpufleet.drain.NegativeCache;
import io.gpufleet.drain.aws.AutoScalingLifecycleAdapter;
import io.gpufleet.drain.aws.AutoScalingReplacementAdapter;
import io.gpufleet.drain.aws.Ec2InstancesAdapter;
import io.gpufleet.drain.aws.SqsContinuationAdapter;
import io.gpufleet.drain.k8s.DrainClusterAdapter;
import java.time.Clock;
import java.util.function.Supplier;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Builds the drain service from the environment, once per Lambda init. {@code KUBE_API_URL} (with
 * optional {@code KUBE_CA_DATA}, {@code KUBE_TOKEN}) bypasses EKS DescribeCluster for local runs.
 */
public final class DrainWiring {
  public static final String EVENT_SOURCE = "gpufleet.interruption-drain";

  /** The function\'s name: its settings schema is schemas/settings/<FUNCTION>.schema.json. */
  public static final String FUNCTION = "interruption-drain";

  private DrainWiring() {}

  /**
   * {@code prime} readies the cluster client's JSON paths without a request (init only); {@code
   * client} is closed only by one-shot local runs (a Lambda environment keeps it).
   */
  public record Wired(
      DrainService service,
      MetricsPort metrics,
      Runnable prime,
      AutoCloseable client,
      AccountFilter accounts) {}

  public static Wired fromEnvironment() {
    Supplier<AwsClients> aws = AwsClients.lazyFromEnvironment();
    Settings env = SettingsDocument.apply(Settings.fromEnvironment(), FUNCTION, aws);
    DrainSettings settings = DrainSettings.from(env);
    ClusterList clusters = ClusterList.from(env);
    Clock clock = Clock.systemUTC();
    if (clusters.many() && env.optional("KUBE_API_URL").isPresent()) {
      throw new io.gpufleet.core.config.ConfigException(
          "KUBE_API_URL names one API server but CLUSTER_NAMES lists "
              + clusters.names().size()
              + " clusters: unset KUBE_API_URL (each cluster is found with EKS DescribeCluster)");
    }
    var sinks = OutcomeSinks.fromEnvironment(env, aws, EVENT_SOURCE);
    MetricsPort metrics = new PowertoolsMetricsAdapter();
    var autoScaling = Lazy.of(() -> aws.get().build(AutoScalingClient.builder()));
    LifecyclePort hooks = lifecycleHooks(autoScaling::get);
    ContinuationPort continuations = continuations(env, aws);
    // the first cluster at init (SnapStart primes its client); any other on first use, so one
    // unreachable or mistyped cluster fails its own events, not the function's init
    KubernetesClient primaryKube = KubeClients.fromEnvironment(env, clusters.primary(), aws, clock);
    var primary = new DrainClusterAdapter(primaryKube);
    var ports = new java.util.LinkedHashMap<String, DrainClusterPort>();
    ports.put(clusters.primary(), primary);
    var extraKubes = new java.util.concurrent.CopyOnWriteArrayList<KubernetesClient>();
    for (String name : clusters.names().subList(1, clusters.names().size())) {
      ports.put(
          name,
          new LazyDrainClusterPort(
              name,
              () -> {
                var kube = KubeClients.fromEnvironment(env, name, aws, clock);
                extraKubes.add(kube);
                return new DrainClusterAdapter(kube);
              }));
    }
    var parts =
        Parts.of(settings)
            .reportingTo(metrics, sinks.publisher(), sinks.notifier())
            .timedBy(clock, Sleeper.SYSTEM)
            .withLifecycle(hooks, continuations);
    var members = members(ports, parts);
    DrainService service = entry(members, clusters, clock);
    if (env.bool("DRAIN_CAPACITY_BLOCK_EC2_LOOKUP", true)) {
      service.findReservationInstancesWith(reservationInstances(aws));
    }
    if (env.bool("DRAIN_EARLY_REPLACEMENT", true)) {
      service.replaceEarlyWith(new AutoScalingReplacementAdapter(autoScaling::get));
    }
    if (env.bool("DRAIN_NODE_LOOKUP_EC2", true)) {
      service.lookUpInstancesWith(InstanceLookupPort.remembering(instanceDirectory(aws), 4096));
    }
    AutoCloseable close =
        () -> {
          primaryKube.close();
          for (var k : extraKubes) {
            k.close();
          }
        };
    return new Wired(service, metrics, primary::prime, close, AccountFilter.from(env));
  }

  /**
   * What every drain service of one wiring shares besides its cluster: settings, outcome sinks,
   * time, and the Auto Scaling lifecycle hooks with their continuation queue ({@code hooks} null:
   * lifecycle actions are not handled).
   */
  public record Parts(
      DrainSettings settings,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier,
      Clock clock,
      Sleeper sleeper,
      LifecyclePort hooks,
      ContinuationPort continuations) {

    /** No outcome sinks, the system clock, no lifecycle hooks. */
    public static Parts of(DrainSettings settings) {
      return new Parts(
          settings,
          MetricsPort.NONE,
          EventPublisherPort.NONE,
          NotifierPort.NONE,
          Clock.systemUTC(),
          Sleeper.SYSTEM,
          null,
          ContinuationPort.NONE);
    }

    public Parts reportingTo(
        MetricsPort metrics, EventPublisherPort publisher, NotifierPort notifier) {
      return new Parts(
          settings, metrics, publisher, notifier, clock, sleeper, hooks, continuations);
    }

    public Parts timedBy(Clock clock, Sleeper sleeper) {
      return new Parts(
          settings, metrics, publisher, notifier, clock, sleeper, hooks, continuations);
    }

    public Parts timedBy(TimeSource time) {
      return timedBy(time.clock(), time.sleeper());
    }

    public Parts withLifecycle(LifecyclePort hooks, ContinuationPort continuations) {
      return new Parts(
          settings, metrics, publisher, notifier, clock, sleeper, hooks, continuations);
    }

    /** The drain of one cluster, its settings named after it. */
    ClusterDrain drain(String clusterName, DrainClusterPort cluster) {
      return drain(settings.withClusterName(clusterName), cluster);
    }

    ClusterDrain drain(DrainSettings own, DrainClusterPort cluster) {
      var reporter = DrainReporting.reporter(cluster, metrics, publisher, notifier, own.options());
      return new ClusterDrain(own, cluster, reporter, clock, sleeper, hooks, continuations);
    }
  }

  /** One drain per cluster, in the list's order. */
  static java.util.List<ClusterRouter.Member> members(
      java.util.Map<String, DrainClusterPort> ports, Parts parts) {
    var members = new java.util.ArrayList<ClusterRouter.Member>();
    ports.forEach(
        (name, cluster) -> members.add(new ClusterRouter.Member(name, parts.drain(name, cluster))));
    return members;
  }

  /** The service over the members: the only one's drain, else routing among all of them. */
  static DrainService entry(
      java.util.List<ClusterRouter.Member> members, ClusterList clusters, Clock clock) {
    if (members.size() == 1) {
      return new DrainService(ClusterRouter.single(members.get(0).drain()));
    }
    return new DrainService(
        new ClusterRouter(
            members, new NegativeCache(clusters.negativeTtl(), clusters.negativeMax(), clock)));
  }

  /**
   * A drain service for several clusters (name → client, in order): the wiring simulate, the CLI
   * and the tests share with the Lambda's.
   */
  public static DrainService routed(
      java.util.Map<String, KubernetesClient> kubes, ClusterList clusters, Parts parts) {
    var ports = new java.util.LinkedHashMap<String, DrainClusterPort>();
    kubes.forEach((name, kube) -> ports.put(name, new DrainClusterAdapter(kube)));
    return entry(members(ports, parts), clusters, parts.clock());
  }

  /**
   * EC2 DescribeInstances for one instance (node name, cluster tags), client built on first use.
   */
  static InstanceLookupPort instanceDirectory(Supplier<AwsClients> aws) {
    var adapter = Lazy.of(() -> Ec2InstancesAdapter.from(aws.get()));
    return id -> adapter.get().describe(id);
  }

  /** EC2 DescribeInstances for a Capacity Block's instances, client built on first use. */
  static CapacityReservationPort reservationInstances(Supplier<AwsClients> aws) {
    var adapter = Lazy.of(() -> Ec2InstancesAdapter.from(aws.get()));
    return id -> adapter.get().runningInstances(id);
  }

  /**
   * The Auto Scaling client, built on first use (SnapStart: no client state in the snapshot that a
   * lifecycle event does not need; a spot-only deployment never builds it).
   */
  static LifecyclePort lifecycleHooks(Supplier<AutoScalingClient> autoScaling) {
    var port = Lazy.of(() -> new AutoScalingLifecycleAdapter(autoScaling.get()));
    return new LifecyclePort() {
      @Override
      public void heartbeat(Hook hook) throws HookGoneException {
        port.get().heartbeat(hook);
      }

      @Override
      public void complete(Hook hook, String result) throws HookGoneException {
        port.get().complete(hook, result);
      }
    };
  }

  /** {@code LIFECYCLE_CONTINUATION_QUEUE_URL}: where delayed continuations go (none: unset). */
  static ContinuationPort continuations(Settings env, Supplier<AwsClients> aws) {
    var url = env.optional("LIFECYCLE_CONTINUATION_QUEUE_URL").filter(u -> !u.isBlank());
    if (url.isEmpty()) {
      return ContinuationPort.NONE;
    }
    var client = Lazy.of(() -> aws.get().build(SqsClient.builder()));
    return (body, delay) ->
        new SqsContinuationAdapter(client.get(), url.get()).schedule(body, delay);
  }

  /**
   * A drain service over a Kubernetes client with the given parts: the wiring the CLI, simulate,
   * the benchmarks and the tests share (the Lambda adds AWS sinks in fromEnvironment).
   */
  public static DrainService service(KubernetesClient kube, Parts parts) {
    return new DrainService(
        ClusterRouter.single(parts.drain(parts.settings(), new DrainClusterAdapter(kube))));
  }
}

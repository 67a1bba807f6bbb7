package io.gpufleet.drain;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.OutcomeSinks;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.EventPublisher;
import io.gpufleet.core.outcome.MetricsSink;
import io.gpufleet.core.outcome.Notifier;
import io.gpufleet.core.outcome.PowertoolsMetricsSink;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.k8s.FabricClusterGateway;
import java.time.Clock;
import java.util.function.Supplier;

/**
 * Builds the drain service from the environment, once per Lambda init. {@code KUBE_API_URL} (with
 * optional {@code KUBE_CA_DATA}, {@code KUBE_TOKEN}) bypasses EKS DescribeCluster for local runs.
 */
public final class DrainWiring {
  public static final String EVENT_SOURCE = "gpufleet.interruption-drain";

  private DrainWiring() {}

  /**
   * {@code prime} readies the cluster client's JSON paths without a request (init only); {@code
   * client} is closed only by one-shot local runs (a Lambda environment keeps it).
   */
  public record Wired(
      DrainService service, MetricsSink metrics, Runnable prime, AutoCloseable client) {}

  public static Wired fromEnvironment() {
    Settings env = Settings.fromEnvironment();
    DrainSettings settings = DrainSettings.from(env);
    Clock clock = Clock.systemUTC();
    Supplier<AwsClients> aws = AwsClients.lazyFromEnvironment();
    KubernetesClient kube = KubeClients.fromEnvironment(env, settings.clusterName(), aws, clock);
    var sinks = OutcomeSinks.fromEnvironment(env, aws, EVENT_SOURCE);
    MetricsSink metrics = new PowertoolsMetricsSink();
    var cluster = new FabricClusterGateway(kube);
    var reporter =
        new DrainReporter(
            cluster, metrics, sinks.publisher(), sinks.notifier(), settings.options());
    return new Wired(
        new DrainService(
            settings,
            cluster,
            reporter,
            clock,
            Sleeper.SYSTEM,
            lifecycleHooks(aws),
            continuations(env, aws)),
        metrics,
        cluster::prime,
        kube);
  }

  /**
   * The Auto Scaling client, built on first use (SnapStart: no client state in the snapshot that a
   * lifecycle event does not need; a spot-only deployment never builds it).
   */
  static LifecyclePort lifecycleHooks(Supplier<AwsClients> aws) {
    var port =
        new java.util.concurrent.atomic.AtomicReference<
            io.gpufleet.drain.aws.AutoScalingLifecycleAdapter>();
    Supplier<LifecyclePort> lazy =
        () ->
            port.updateAndGet(
                p ->
                    p != null
                        ? p
                        : new io.gpufleet.drain.aws.AutoScalingLifecycleAdapter(
                            aws.get()
                                .build(
                                    software.amazon.awssdk.services.autoscaling.AutoScalingClient
                                        .builder())));
    return new LifecyclePort() {
      @Override
      public void heartbeat(Hook hook) throws HookGoneException {
        lazy.get().heartbeat(hook);
      }

      @Override
      public void complete(Hook hook, String result) throws HookGoneException {
        lazy.get().complete(hook, result);
      }
    };
  }

  /** {@code LIFECYCLE_CONTINUATION_QUEUE_URL}: where delayed continuations go (none: unset). */
  static ContinuationPort continuations(Settings env, Supplier<AwsClients> aws) {
    var url = env.optional("LIFECYCLE_CONTINUATION_QUEUE_URL").filter(u -> !u.isBlank());
    if (url.isEmpty()) {
      return ContinuationPort.NONE;
    }
    var client =
        new java.util.concurrent.atomic.AtomicReference<
            software.amazon.awssdk.services.sqs.SqsClient>();
    return (body, delay) ->
        new io.gpufleet.drain.aws.SqsContinuationAdapter(
                client.updateAndGet(
                    c ->
                        c != null
                            ? c
                            : aws.get()
                                .build(software.amazon.awssdk.services.sqs.SqsClient.builder())),
                url.get())
            .schedule(body, delay);
  }

  /**
   * A drain service over a Kubernetes client with the given outcome sinks: the wiring the CLI,
   * simulate, the benchmarks and the tests share (the Lambda adds AWS sinks in fromEnvironment).
   */
  public static DrainService service(
      KubernetesClient kube,
      DrainSettings settings,
      MetricsSink metrics,
      EventPublisher publisher,
      Notifier notifier,
      Clock clock,
      Sleeper sleeper) {
    return service(
        kube, settings, metrics, publisher, notifier, clock, sleeper, null, ContinuationPort.NONE);
  }

  /** As above, with Auto Scaling lifecycle hooks handled through {@code hooks}. */
  public static DrainService service(
      KubernetesClient kube,
      DrainSettings settings,
      MetricsSink metrics,
      EventPublisher publisher,
      Notifier notifier,
      Clock clock,
      Sleeper sleeper,
      LifecyclePort hooks,
      ContinuationPort continuations) {
    var cluster = new FabricClusterGateway(kube);
    var reporter = new DrainReporter(cluster, metrics, publisher, notifier, settings.options());
    return new DrainService(settings, cluster, reporter, clock, sleeper, hooks, continuations);
  }
}

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
    var reporter = new DrainReporter(cluster, metrics, sinks.publisher(), sinks.notifier());
    return new Wired(
        new DrainService(settings, cluster, reporter, clock, Sleeper.SYSTEM),
        metrics,
        cluster::prime,
        kube);
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
    var cluster = new FabricClusterGateway(kube);
    var reporter = new DrainReporter(cluster, metrics, publisher, notifier);
    return new DrainService(settings, cluster, reporter, clock, sleeper);
  }
}

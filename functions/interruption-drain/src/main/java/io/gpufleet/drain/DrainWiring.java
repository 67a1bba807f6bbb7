package io.gpufleet.drain;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.EventBridgePublisher;
import io.gpufleet.core.aws.SlackWebhookNotifier;
import io.gpufleet.core.aws.SnsNotifier;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.EventPublisher;
import io.gpufleet.core.outcome.MetricsSink;
import io.gpufleet.core.outcome.Notifier;
import io.gpufleet.core.outcome.PowertoolsMetricsSink;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.k8s.FabricClusterGateway;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.function.Supplier;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.sns.SnsClient;

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
    Supplier<AwsClients> aws = memoize(AwsClients::fromEnvironment);
    KubernetesClient kube =
        env.optional("KUBE_API_URL")
            .map(
                url ->
                    KubeClients.forUrl(
                        url, env.optional("KUBE_CA_DATA"), () -> env.string("KUBE_TOKEN", "")))
            .orElseGet(
                () -> {
                  AwsClients a = aws.get();
                  return KubeClients.forEks(
                      a.build(EksClient.builder()),
                      settings.clusterName(),
                      a.region(),
                      a.credentials(),
                      clock);
                });
    EventPublisher publisher =
        env.optional("OUTCOME_EVENT_BUS")
            .<EventPublisher>map(
                bus ->
                    new EventBridgePublisher(
                        aws.get().build(EventBridgeClient.builder()), bus, EVENT_SOURCE))
            .orElse(EventPublisher.NONE);
    var notifiers = new ArrayList<Notifier>();
    env.optional("NOTIFY_TOPIC_ARN")
        .ifPresent(
            arn -> notifiers.add(new SnsNotifier(aws.get().build(SnsClient.builder()), arn)));
    env.optional("SLACK_WEBHOOK_URL")
        .ifPresent(url -> notifiers.add(new SlackWebhookNotifier(URI.create(url))));
    MetricsSink metrics = new PowertoolsMetricsSink();
    var cluster = new FabricClusterGateway(kube);
    var reporter = new DrainReporter(cluster, metrics, publisher, Notifier.all(notifiers));
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

  private static <T> Supplier<T> memoize(Supplier<T> supplier) {
    return new Supplier<>() {
      private T value;

      @Override
      public synchronized T get() {
        if (value == null) {
          value = supplier.get();
        }
        return value;
      }
    };
  }
}

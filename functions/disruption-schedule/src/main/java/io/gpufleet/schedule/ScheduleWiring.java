package io.gpufleet.schedule;

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
import io.gpufleet.schedule.aws.S3PolicySource;
import io.gpufleet.schedule.aws.SsmPolicySource;
import io.gpufleet.schedule.k8s.FabricScheduleGateway;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.function.Supplier;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Builds the schedule service from the environment, once per Lambda init. {@code KUBE_API_URL}
 * (with optional {@code KUBE_CA_DATA}, {@code KUBE_TOKEN}) bypasses EKS DescribeCluster for local
 * runs.
 */
public final class ScheduleWiring {
  public static final String EVENT_SOURCE = "gpufleet.disruption-schedule";

  private ScheduleWiring() {}

  public record Wired(ScheduleService service, MetricsSink metrics, AutoCloseable client) {}

  public static Wired fromEnvironment() {
    Settings env = Settings.fromEnvironment();
    ScheduleSettings settings = ScheduleSettings.from(env);
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
    PolicySource source = policySource(settings.policySource(), aws);
    var service =
        service(kube, settings, source, metrics, publisher, Notifier.all(notifiers), clock);
    return new Wired(service, metrics, kube);
  }

  /** ssm:/name, s3://bucket/key, file:/path, or the document itself. */
  public static PolicySource policySource(String spec, Supplier<AwsClients> aws) {
    if (spec.startsWith("ssm:")) {
      return new SsmPolicySource(aws.get().build(SsmClient.builder()), spec.substring(4));
    }
    if (spec.startsWith("s3://")) {
      String rest = spec.substring(5);
      int slash = rest.indexOf('/');
      return new S3PolicySource(
          aws.get().build(S3Client.builder()), rest.substring(0, slash), rest.substring(slash + 1));
    }
    if (spec.startsWith("file:")) {
      return PolicySource.file(Path.of(spec.substring(5)));
    }
    return PolicySource.inline(spec, "inline");
  }

  /** The schedule service over a Kubernetes client: shared by the CLI, simulate, bench, tests. */
  public static ScheduleService service(
      KubernetesClient kube,
      ScheduleSettings settings,
      PolicySource source,
      MetricsSink metrics,
      EventPublisher publisher,
      Notifier notifier,
      Clock clock) {
    var cluster = new FabricScheduleGateway(kube, clock);
    var reporter = new ScheduleReporter(cluster, metrics, publisher, notifier);
    return new ScheduleService(settings, source, cluster, reporter, clock);
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

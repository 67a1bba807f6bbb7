package io.gpufleet.cost;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.EventBridgePublisher;
import io.gpufleet.core.aws.S3BlobStore;
import io.gpufleet.core.aws.SnsNotifier;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.EventPublisher;
import io.gpufleet.core.outcome.MetricsSink;
import io.gpufleet.core.outcome.Notifier;
import io.gpufleet.core.outcome.PowertoolsMetricsSink;
import io.gpufleet.core.pricing.OnDemandPricing;
import io.gpufleet.core.store.BlobStore;
import io.gpufleet.cost.aws.Ec2InstanceReader;
import io.gpufleet.cost.aws.Ec2SpotPriceHistory;
import io.gpufleet.cost.k8s.FabricClusterReader;
import java.time.Clock;
import java.util.Optional;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sns.SnsClient;

/**
 * Builds the cost report service from the environment, once per Lambda init. {@code KUBE_API_URL}
 * (with optional {@code KUBE_CA_DATA}, {@code KUBE_TOKEN}) bypasses EKS DescribeCluster for local
 * runs.
 */
public final class CostWiring {
  public static final String EVENT_SOURCE = "gpufleet.cost-report";

  private CostWiring() {}

  public record Wired(
      CostReportService service,
      MetricsSink metrics,
      CostReporter reporter,
      String cluster,
      KubernetesClient client) {}

  public static Wired fromEnvironment() {
    Settings env = Settings.fromEnvironment();
    CostSettings settings = CostSettings.from(env);
    String bucket = env.required("REPORT_BUCKET");
    Clock clock = Clock.systemUTC();
    AwsClients aws = AwsClients.fromEnvironment();
    KubernetesClient kube =
        env.optional("KUBE_API_URL")
            .map(
                url ->
                    KubeClients.forUrl(
                        url, env.optional("KUBE_CA_DATA"), () -> env.string("KUBE_TOKEN", "")))
            .orElseGet(
                () ->
                    KubeClients.forEks(
                        aws.build(EksClient.builder()),
                        settings.clusterName(),
                        aws.region(),
                        aws.credentials(),
                        clock));
    BlobStore store = new S3BlobStore(aws.build(S3Client.builder()), bucket, "");
    EventPublisher publisher =
        env.optional("OUTCOME_EVENT_BUS")
            .<EventPublisher>map(
                bus ->
                    new EventBridgePublisher(
                        aws.build(EventBridgeClient.builder()), bus, EVENT_SOURCE))
            .orElse(EventPublisher.NONE);
    Notifier notifier =
        env.optional("NOTIFY_TOPIC_ARN")
            .<Notifier>map(arn -> new SnsNotifier(aws.build(SnsClient.builder()), arn))
            .orElse(Notifier.NONE);
    MetricsSink metrics = new PowertoolsMetricsSink();
    var reporter = new CostReporter(metrics, publisher, notifier);
    Ec2Client ec2 = aws.build(Ec2Client.builder());
    var service =
        new CostReportService(
            settings,
            aws.region().id(),
            new FabricClusterReader(kube, settings.teamLabel()),
            new Ec2InstanceReader(ec2),
            new Ec2SpotPriceHistory(ec2),
            OnDemandPricing.create(aws, env, Optional.of(store), clock),
            store,
            reporter,
            clock);
    return new Wired(service, metrics, reporter, settings.clusterName(), kube);
  }
}

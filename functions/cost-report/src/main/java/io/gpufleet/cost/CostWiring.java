package io.gpufleet.cost;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.OutcomeSinks;
import io.gpufleet.core.aws.S3BlobStore;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.MetricsSink;
import io.gpufleet.core.outcome.PowertoolsMetricsSink;
import io.gpufleet.core.pricing.OnDemandPricing;
import io.gpufleet.core.store.BlobStore;
import io.gpufleet.cost.aws.Ec2InstanceReader;
import io.gpufleet.cost.aws.Ec2SpotPriceHistory;
import io.gpufleet.cost.k8s.FabricClusterReader;
import java.time.Clock;
import java.util.Optional;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.s3.S3Client;

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
        KubeClients.fromEnvironment(env, settings.clusterName(), () -> aws, clock);
    BlobStore store = new S3BlobStore(aws.build(S3Client.builder()), bucket, "");
    var sinks = OutcomeSinks.fromEnvironment(env, () -> aws, EVENT_SOURCE);
    MetricsSink metrics = new PowertoolsMetricsSink();
    var reporter = new CostReporter(metrics, sinks.publisher(), sinks.notifier());
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

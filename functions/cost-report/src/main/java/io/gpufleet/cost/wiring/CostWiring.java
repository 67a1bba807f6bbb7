package io.gpufleet.cost.wiring;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.aws.OutcomeSinks;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.outcome.PowertoolsMetricsAdapter;
import io.gpufleet.core.pricing.api.OnDemandPricing;
import io.gpufleet.core.s3.S3BlobStoreAdapter;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.cost.CommitmentPort;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporting;
import io.gpufleet.cost.CostSettings;
import io.gpufleet.cost.LazyCostClusterPort;
import io.gpufleet.cost.UtilisationPort;
import io.gpufleet.cost.aws.Ec2InstanceAdapter;
import io.gpufleet.cost.aws.Ec2SpotPriceHistoryAdapter;
import io.gpufleet.cost.k8s.CostClusterAdapter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds the cost report service from the environment, once per Lambda init. {@code KUBE_API_URL}
 * (with optional {@code KUBE_CA_DATA}, {@code KUBE_TOKEN}) bypasses EKS DescribeCluster for local
 * runs.
 */
public final class CostWiring {
  public static final String EVENT_SOURCE = "gpufleet.cost-report";

  /** The function\'s name: its settings schema is schemas/settings/<FUNCTION>.schema.json. */
  public static final String FUNCTION = "cost-report";

  private CostWiring() {}

  public record Wired(
      CostReportService service,
      MetricsPort metrics,
      OutcomeReporter<CostReporting.Run> reporter,
      String cluster,
      KubernetesClient client) {}

  /** The configured commitment source; Cost Explorer is global, served from us-east-1. */
  /** FOCUS files to the report bucket, or to COST_FOCUS_BUCKET (a central one). */
  static io.gpufleet.cost.focus.FocusOutput focus(Settings env, S3Rest s3, BlobStorePort store) {
    var f = io.gpufleet.cost.focus.FocusOutput.from(env);
    String central = env.string("COST_FOCUS_BUCKET", "");
    return central.isEmpty() ? f : f.to(new S3BlobStoreAdapter(s3, central, ""));
  }

  static CommitmentPort commitments(CostSettings settings, AwsClients aws) {
    return switch (settings.commitments()) {
      case "cost-explorer" ->
          new io.gpufleet.cost.aws.CostExplorerCommitmentAdapter(
              AwsJson.from(
                  aws.withRegion(software.amazon.awssdk.regions.Region.US_EAST_1),
                  AwsJson.COST_EXPLORER));
      case "rate-table" -> w -> io.gpufleet.cost.model.Commitments.table(settings.effectiveRates());
      default ->
          CommitmentPort.none(
              "not configured (COST_COMMITMENTS=none): On-Demand nodes at list price; Savings"
                  + " Plans and Reserved Instances not applied");
    };
  }

  static UtilisationPort utilisation(CostSettings settings, AwsClients aws) {
    return utilisation(settings, aws, settings.clusterName());
  }

  /** Container Insights is read per cluster (its ClusterName dimension); the others are not. */
  static UtilisationPort utilisation(CostSettings settings, AwsClients aws, String cluster) {
    return switch (settings.utilisation()) {
      case "container-insights" ->
          new io.gpufleet.cost.aws.ContainerInsightsUtilisationAdapter(
              AwsJson.from(aws, AwsJson.CLOUDWATCH), cluster);
      case "prometheus" ->
          new io.gpufleet.cost.aws.PrometheusUtilisationAdapter(
              java.net.URI.create(settings.prometheusUrl()),
              java.net.http.HttpClient.newBuilder()
                  .connectTimeout(java.time.Duration.ofSeconds(10))
                  .build(),
              Optional.of(aws.credentials()));
      default ->
          UtilisationPort.none(
              "not configured (COST_UTILISATION=none): idle is requested-idle only; no cost per"
                  + " token");
    };
  }

  public static Wired fromEnvironment() {
    Settings env =
        SettingsDocument.apply(
            Settings.fromEnvironment(), FUNCTION, AwsClients.lazyFromEnvironment());
    CostSettings settings = CostSettings.from(env);
    List<String> clusters = CostSettings.clusterNames(env);
    if (clusters.size() > 1 && env.optional("KUBE_API_URL").isPresent()) {
      throw new ConfigException(
          "KUBE_API_URL names one API server but CLUSTER_NAMES lists "
              + clusters.size()
              + " clusters: unset KUBE_API_URL (each cluster is found with EKS DescribeCluster)");
    }
    String bucket = env.required("REPORT_BUCKET");
    Clock clock = Clock.systemUTC();
    AwsClients aws = AwsClients.fromEnvironment();
    // S3 through S3Rest (no SDK S3 client to build; its signing path is primed by CostPriming)
    S3Rest s3 = S3Rest.from(aws);
    KubernetesClient kube =
        KubeClients.fromEnvironment(env, settings.clusterName(), () -> aws, clock);
    BlobStorePort store = new S3BlobStoreAdapter(s3, bucket, "");
    var sinks = OutcomeSinks.fromEnvironment(env, () -> aws, EVENT_SOURCE);
    MetricsPort metrics = new PowertoolsMetricsAdapter();
    var reporter = CostReporting.reporter(metrics, sinks.publisher(), sinks.notifier());
    Ec2Query ec2 = Ec2Query.from(aws);
    // the first cluster at init (as ever); any other on first use, so one unreachable or not yet
    // granted cluster fails its own report, not the function's init or the other reports
    var targets = new ArrayList<CostReportService.ClusterTarget>();
    targets.add(
        new CostReportService.ClusterTarget(
            settings.clusterName(),
            new CostClusterAdapter(kube, settings.teamLabel()),
            utilisation(settings, aws, settings.clusterName())));
    for (String name : clusters.subList(1, clusters.size())) {
      targets.add(
          new CostReportService.ClusterTarget(
              name,
              new LazyCostClusterPort(
                  name,
                  () ->
                      new CostClusterAdapter(
                          KubeClients.fromEnvironment(env, name, () -> aws, clock),
                          settings.teamLabel())),
              utilisation(settings, aws, name)));
    }
    var service =
        new CostReportService(
                settings,
                aws.region().id(),
                targets,
                new Ec2InstanceAdapter(ec2),
                new Ec2SpotPriceHistoryAdapter(ec2),
                OnDemandPricing.create(aws, env, Optional.of(store), clock),
                store,
                reporter,
                clock,
                commitments(settings, aws))
            .withFocus(focus(env, s3, store));
    return new Wired(service, metrics, reporter, settings.clusterName(), kube);
  }
}

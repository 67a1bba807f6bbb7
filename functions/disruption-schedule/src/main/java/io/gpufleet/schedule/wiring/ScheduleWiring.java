package io.gpufleet.schedule.wiring;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.aws.OutcomeSinks;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.PowertoolsMetricsAdapter;
import io.gpufleet.core.s3.S3BlobStoreAdapter;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.schedule.HoldRecords;
import io.gpufleet.schedule.PolicySourcePort;
import io.gpufleet.schedule.ScheduleReporting;
import io.gpufleet.schedule.ScheduleService;
import io.gpufleet.schedule.ScheduleSettings;
import io.gpufleet.schedule.aws.S3PolicyAdapter;
import io.gpufleet.schedule.aws.SsmPolicyAdapter;
import io.gpufleet.schedule.k8s.ScheduleClusterAdapter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.Supplier;

/**
 * Builds the schedule service from the environment, once per Lambda init. {@code KUBE_API_URL}
 * (with optional {@code KUBE_CA_DATA}, {@code KUBE_TOKEN}) bypasses EKS DescribeCluster for local
 * runs.
 */
public final class ScheduleWiring {
  public static final String EVENT_SOURCE = "gpufleet.disruption-schedule";

  /** The function\'s name: its settings schema is schemas/settings/<FUNCTION>.schema.json. */
  public static final String FUNCTION = "disruption-schedule";

  private ScheduleWiring() {}

  public record Wired(ScheduleService service, MetricsPort metrics, AutoCloseable client) {}

  public static Wired fromEnvironment() {
    Supplier<AwsClients> aws = AwsClients.lazyFromEnvironment();
    Settings env = SettingsDocument.apply(Settings.fromEnvironment(), FUNCTION, aws);
    ScheduleSettings settings = ScheduleSettings.from(env);
    Clock clock = Clock.systemUTC();
    KubernetesClient kube = KubeClients.fromEnvironment(env, settings.clusterName(), aws, clock);
    var sinks = OutcomeSinks.fromEnvironment(env, aws, EVENT_SOURCE);
    MetricsPort metrics = new PowertoolsMetricsAdapter();
    PolicySourcePort source = policySource(settings.policySource(), aws);
    var records =
        HoldRecords.Recorder.from(
            env, bucket -> new S3BlobStoreAdapter(S3Rest.from(aws.get()), bucket, ""));
    var service =
        service(kube, settings, source, metrics, sinks.publisher(), sinks.notifier(), clock)
            .withRecords(records);
    return new Wired(service, metrics, kube);
  }

  /** ssm:/name, s3://bucket/key, file:/path, or the document itself. */
  public static PolicySourcePort policySource(String spec, Supplier<AwsClients> aws) {
    if (spec.startsWith("ssm:")) {
      return new SsmPolicyAdapter(AwsJson.from(aws.get(), AwsJson.SSM), spec.substring(4));
    }
    if (spec.startsWith("s3://")) {
      String rest = spec.substring(5);
      int slash = rest.indexOf('/');
      return new S3PolicyAdapter(
          S3Rest.from(aws.get()), rest.substring(0, slash), rest.substring(slash + 1));
    }
    if (spec.startsWith("file:")) {
      return PolicySourcePort.file(Path.of(spec.substring(5)));
    }
    return PolicySourcePort.inline(spec, "inline");
  }

  /** The schedule service over a Kubernetes client: shared by the CLI, simulate, bench, tests. */
  public static ScheduleService service(
      KubernetesClient kube,
      ScheduleSettings settings,
      PolicySourcePort source,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier,
      Clock clock) {
    var cluster = new ScheduleClusterAdapter(kube, clock);
    var reporter = ScheduleReporting.reporter(metrics, publisher, notifier);
    return new ScheduleService(settings, source, cluster, reporter, clock);
  }
}

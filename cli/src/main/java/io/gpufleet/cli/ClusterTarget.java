package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.k8s.KubeClients;
import java.time.Clock;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * The real cluster a command acts on, declared once for every command that reaches one ({@code
 * drain}, {@code invoke}, {@code budgets apply}, {@code cost-report}): an EKS cluster by name (EKS
 * DescribeCluster + an IAM token, as the Lambda reaches it) or the kubeconfig's. A picocli mixin:
 * {@code @Mixin ClusterTarget target}.
 */
final class ClusterTarget {
  @Option(
      names = "--cluster",
      paramLabel = "NAME",
      description =
          "EKS cluster, reached through EKS DescribeCluster + an IAM token (with --kubeconfig: the"
              + " name the cluster is reported under).")
  String cluster;

  @Option(
      names = "--region",
      paramLabel = "R",
      description = "AWS region of the cluster (default: AWS_REGION, AWS_DEFAULT_REGION).")
  String region;

  @Option(
      names = "--kubeconfig",
      description = "Reach the cluster through the kubeconfig instead of EKS.")
  boolean kubeconfig;

  @Option(
      names = "--context",
      paramLabel = "C",
      description = "kubeconfig context (with --kubeconfig; default: the current one).")
  String context;

  /** {@code --cluster}, which the command cannot do without. */
  String requireCluster(CommandSpec spec) {
    if (cluster == null) {
      throw Cli.bad(spec, "Missing required option: '--cluster=NAME'");
    }
    return cluster;
  }

  /** A context names a kubeconfig entry: refused without the kubeconfig. */
  void checkContext(CommandSpec spec, boolean viaKubeconfig) {
    if (context != null && !viaKubeconfig) {
      throw Cli.bad(spec, "--context goes with --kubeconfig");
    }
  }

  /** The AWS region: {@code --region}, else AWS_REGION, else AWS_DEFAULT_REGION. */
  String awsRegion(String command) {
    return Optional.ofNullable(region)
        .or(() -> Optional.ofNullable(System.getenv("AWS_REGION")))
        .or(() -> Optional.ofNullable(System.getenv("AWS_DEFAULT_REGION")))
        .orElseThrow(() -> new ConfigException(command + ": --region is required (or AWS_REGION)"));
  }

  /** AWS clients of the region, with the default credential chain. */
  AwsClients aws(String command) {
    return new AwsClients(
        Region.of(awsRegion(command)),
        DefaultCredentialsProvider.builder().build(),
        Optional.empty());
  }

  /**
   * The cluster's client: the kubeconfig's when {@code viaKubeconfig}, else EKS cluster {@code
   * clusterName} in the region (the command's name words a missing region).
   */
  KubernetesClient connect(String command, boolean viaKubeconfig, String clusterName) {
    if (viaKubeconfig) {
      return KubeClients.fromKubeconfig(Optional.ofNullable(context));
    }
    return KubeClients.forEks(aws(command), clusterName, Clock.systemUTC());
  }
}

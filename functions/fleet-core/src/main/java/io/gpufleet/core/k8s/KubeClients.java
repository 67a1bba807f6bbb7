package io.gpufleet.core.k8s;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.eks.model.Cluster;

/**
 * Builds the fabric8 client the one way this project does: JDK HTTP client, no hidden retries (the
 * callers own retry loops and deadlines), short timeouts.
 */
public final class KubeClients {
  private KubeClients() {}

  /** Endpoint and CA from EKS DescribeCluster, bearer token from {@link EksTokenProvider}. */
  public static KubernetesClient forEks(
      EksClient eks,
      String clusterName,
      Region region,
      AwsCredentialsProvider credentials,
      Clock clock) {
    Cluster cluster = eks.describeCluster(r -> r.name(clusterName)).cluster();
    if (cluster.endpoint() == null || cluster.endpoint().isBlank()) {
      throw new IllegalStateException(
          "EKS cluster " + clusterName + " has no API endpoint (status " + cluster.status() + ")");
    }
    var token = new EksTokenProvider(clusterName, region, credentials, clock);
    String ca =
        cluster.certificateAuthority() == null ? null : cluster.certificateAuthority().data();
    return forUrl(cluster.endpoint(), Optional.ofNullable(ca), token);
  }

  /** A known API server URL, an optional base64 PEM CA, and a bearer token source. */
  public static KubernetesClient forUrl(
      String url, Optional<String> caCertData, Supplier<String> token) {
    var builder =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(url)
            .withOauthTokenProvider(token::get)
            .withNamespace("default");
    caCertData.ifPresentOrElse(
        builder::withCaCertData, () -> builder.withTrustCerts(url.startsWith("http://")));
    return build(builder.build());
  }

  /** The user's kubeconfig (KUBECONFIG or ~/.kube/config), optionally a named context. */
  public static KubernetesClient fromKubeconfig(Optional<String> context) {
    Config config = context.map(Config::autoConfigure).orElseGet(() -> Config.autoConfigure(null));
    return build(config);
  }

  static KubernetesClient build(Config config) {
    config.setRequestRetryBackoffLimit(0);
    config.setConnectionTimeout(5_000);
    config.setRequestTimeout(15_000);
    config.setMaxConcurrentRequests(512);
    config.setMaxConcurrentRequestsPerHost(512);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new JdkHttpClientFactory())
        .build();
  }
}

package io.gpufleet.core.k8s;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientImpl;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsRestJson;
import io.gpufleet.core.config.Settings;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * Builds the fabric8 client the one way this project does: JDK HTTP client, no hidden retries (the
 * callers own retry loops and deadlines), short timeouts.
 */
public final class KubeClients {
  private KubeClients() {}

  /**
   * The one JSON mapping every client built here uses. A mapper builds its (de)serializers on first
   * use of each type, per mapper: with one shared instance, what a function's INIT warm-up primes
   * on its second thread is what the client reads its first answer with, instead of a throwaway
   * mapper primed beside the client's own (fabric8's builder makes a fresh mapping per client
   * unless given one). Thread-safe, and no client registers types on it.
   */
  public static KubernetesSerialization serialization() {
    return SharedSerialization.INSTANCE;
  }

  /** Created on first use, by whichever thread gets there first (the other waits, not redoes). */
  private static final class SharedSerialization {
    static final KubernetesSerialization INSTANCE = new KubernetesSerialization();
  }

  /**
   * The cluster client every function builds from its environment: {@code KUBE_API_URL} (with
   * optional {@code KUBE_CA_DATA} and {@code KUBE_TOKEN}) for local runs and tests, otherwise the
   * EKS cluster {@code clusterName} found with DescribeCluster and an EKS token.
   */
  public static KubernetesClient fromEnvironment(
      Settings env, String clusterName, Supplier<AwsClients> aws, Clock clock) {
    var url = env.optional("KUBE_API_URL");
    if (url.isPresent()) {
      return forUrl(url.get(), env.optional("KUBE_CA_DATA"), () -> env.string("KUBE_TOKEN", ""));
    }
    return forEks(aws.get(), clusterName, clock);
  }

  /**
   * Endpoint and CA from EKS DescribeCluster (the EKS endpoint of {@code aws}: its override, else
   * {@code AWS_ENDPOINT_URL_EKS} or {@code AWS_ENDPOINT_URL}, else {@code eks.<region>.<suffix>}),
   * bearer token from {@link EksTokenProvider} with the credentials of {@code aws}.
   *
   * @throws io.gpufleet.core.aws.AwsCallException as EKS answers (an unknown cluster: 404
   *     ResourceNotFoundException)
   * @throws IllegalStateException when the cluster has no API endpoint yet (not ACTIVE)
   */
  public static KubernetesClient forEks(AwsClients aws, String clusterName, Clock clock) {
    EksCluster cluster = EksCluster.describe(AwsRestJson.from(aws, AwsRestJson.EKS), clusterName);
    if (cluster.endpoint() == null) {
      throw new IllegalStateException(
          "EKS cluster " + clusterName + " has no API endpoint (status " + cluster.status() + ")");
    }
    var token = new EksTokenProvider(clusterName, aws.region(), aws.credentials(), clock);
    return forUrl(cluster.endpoint(), cluster.caData(), token);
  }

  /** A known API server URL, an optional base64 PEM CA, and a bearer token source. */
  public static KubernetesClient forUrl(
      String url, Optional<String> caCertData, Supplier<String> token) {
    return forUrl(url, caCertData, token, http -> {});
  }

  /**
   * As {@link #forUrl(String, Optional, Supplier)}, with {@code http} adding to the HTTP client (a
   * simulated API server's clients stamp each request with the sender's simulated time).
   */
  public static KubernetesClient forUrl(
      String url,
      Optional<String> caCertData,
      Supplier<String> token,
      Consumer<io.fabric8.kubernetes.client.http.HttpClient.Builder> http) {
    var builder =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(url)
            .withOauthTokenProvider(token::get)
            .withNamespace("default");
    caCertData.ifPresentOrElse(
        builder::withCaCertData, () -> builder.withTrustCerts(url.startsWith("http://")));
    return build(builder.build(), http);
  }

  /** The user's kubeconfig (KUBECONFIG or ~/.kube/config), optionally a named context. */
  public static KubernetesClient fromKubeconfig(Optional<String> context) {
    Config config = context.map(Config::autoConfigure).orElseGet(() -> Config.autoConfigure(null));
    return build(config, http -> {});
  }

  static KubernetesClient build(
      Config config, Consumer<io.fabric8.kubernetes.client.http.HttpClient.Builder> http) {
    config.setRequestRetryBackoffLimit(0);
    config.setConnectionTimeout(5_000);
    config.setRequestTimeout(15_000);
    config.setMaxConcurrentRequests(512);
    config.setMaxConcurrentRequestsPerHost(512);
    if (config.getMasterUrl() != null && config.getMasterUrl().startsWith("http://")) {
      // Plain-HTTP servers are local simulators whose HTTP/2 (h2c) handling serialises the streams
      // of one connection; real API servers are HTTPS, where HTTP/2 multiplexes in parallel.
      config.setHttp2Disable(true);
    }
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withKubernetesSerialization(serialization())
        .withHttpClientFactory(new ClosingJdkHttpClientFactory())
        .withHttpClientBuilderConsumer(http)
        .build();
  }

  /**
   * fabric8 closes a JDK client by stopping its executor only; the JDK client's selector thread
   * then idles in native code until the client is garbage collected, and a one-shot JVM's exit
   * waits (~0.3 s) for such threads. This factory also shuts the JDK client down on close (derived
   * fabric8 clients share the JDK client and its closed state, so this is the same lifecycle).
   */
  static final class ClosingJdkHttpClientFactory extends JdkHttpClientFactory {
    private final List<java.net.http.HttpClient> built = new CopyOnWriteArrayList<>();

    @Override
    protected java.net.http.HttpClient.Builder createNewHttpClientBuilder() {
      return new RecordingBuilder(super.createNewHttpClientBuilder(), built);
    }

    @Override
    protected void closeHttpClient(JdkHttpClientImpl client) {
      super.closeHttpClient(client);
      built.forEach(java.net.http.HttpClient::shutdownNow);
    }
  }

  private record RecordingBuilder(
      java.net.http.HttpClient.Builder delegate, List<java.net.http.HttpClient> built)
      implements java.net.http.HttpClient.Builder {
    @Override
    public java.net.http.HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
      delegate.cookieHandler(cookieHandler);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder connectTimeout(Duration duration) {
      delegate.connectTimeout(duration);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder sslContext(SSLContext sslContext) {
      delegate.sslContext(sslContext);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder sslParameters(SSLParameters sslParameters) {
      delegate.sslParameters(sslParameters);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder executor(Executor executor) {
      delegate.executor(executor);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder followRedirects(
        java.net.http.HttpClient.Redirect policy) {
      delegate.followRedirects(policy);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder version(java.net.http.HttpClient.Version version) {
      delegate.version(version);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder priority(int priority) {
      delegate.priority(priority);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder proxy(ProxySelector proxySelector) {
      delegate.proxy(proxySelector);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder authenticator(Authenticator authenticator) {
      delegate.authenticator(authenticator);
      return this;
    }

    @Override
    public java.net.http.HttpClient.Builder localAddress(InetAddress localAddr) {
      delegate.localAddress(localAddr);
      return this;
    }

    /** Renewable in place after a SnapStart restore (see {@link RenewableHttpClient}). */
    @Override
    public java.net.http.HttpClient build() {
      java.net.http.HttpClient client = new RenewableHttpClient(delegate);
      built.add(client);
      return client;
    }
  }
}

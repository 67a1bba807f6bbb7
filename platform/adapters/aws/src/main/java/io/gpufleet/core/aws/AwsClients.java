package io.gpufleet.core.aws;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * Builds SDK clients the one way this project does: explicit region and credentials provider, the
 * lightweight url-connection HTTP client, an optional endpoint override (the SDK also honours
 * AWS_ENDPOINT_URL by itself, so moto and LocalStack work unchanged).
 */
public final class AwsClients {
  private final Region region;
  private final AwsCredentialsProvider credentials;
  private final Optional<URI> endpoint;
  private final SdkHttpClient http;

  public AwsClients(Region region, AwsCredentialsProvider credentials, Optional<URI> endpoint) {
    this(
        region,
        credentials,
        endpoint,
        UrlConnectionHttpClient.builder()
            .connectionTimeout(Duration.ofSeconds(3))
            .socketTimeout(Duration.ofSeconds(20))
            .build());
  }

  /**
   * As above with a given HTTP client: for a caller that reaches an emulator over HTTPS with a
   * certificate of its own (the benchmarks), whose trust lives in that client.
   */
  public AwsClients(
      Region region,
      AwsCredentialsProvider credentials,
      Optional<URI> endpoint,
      SdkHttpClient http) {
    this.region = region;
    this.credentials = credentials;
    this.endpoint = endpoint;
    this.http = http;
  }

  /**
   * Region from AWS_REGION; credentials from the SDK's default chain everywhere, Lambda included:
   * with SnapStart, Lambda serves credentials only through the container endpoint ({@code
   * AWS_CONTAINER_CREDENTIALS_FULL_URI} + {@code AWS_CONTAINER_AUTHORIZATION_TOKEN}) and sets no
   * {@code AWS_ACCESS_KEY_ID}; without SnapStart it sets the environment variables. The chain reads
   * both (environment first) and resolves nothing until the first signed request. The chain sits in
   * a {@link RenewableCredentialsProvider}, so a SnapStart restore drops what it resolved in INIT.
   */
  public static AwsClients fromEnvironment() {
    var env = io.gpufleet.core.config.Settings.fromEnvironment();
    var fallback = env.optional("AWS_DEFAULT_REGION");
    String regionName = env.optional("AWS_REGION").or(() -> fallback).orElse(null);
    if (regionName == null) {
      throw new io.gpufleet.core.config.ConfigException(
          "AWS_REGION is not set: pass --region or export AWS_REGION");
    }
    return new AwsClients(
        Region.of(regionName),
        new RenewableCredentialsProvider(() -> DefaultCredentialsProvider.builder().build()),
        Optional.empty());
  }

  /**
   * {@link #fromEnvironment()} built on first use and then kept: functions whose AWS clients are
   * optional (local runs against {@code KUBE_API_URL}) need no region until they use one.
   */
  public static java.util.function.Supplier<AwsClients> lazyFromEnvironment() {
    return new java.util.function.Supplier<>() {
      private AwsClients value;

      @Override
      public synchronized AwsClients get() {
        if (value == null) {
          value = fromEnvironment();
        }
        return value;
      }
    };
  }

  public Region region() {
    return region;
  }

  public AwsCredentialsProvider credentials() {
    return credentials;
  }

  /** The endpoint override every client of this factory gets (emulators), if any. */
  public Optional<URI> endpointOverride() {
    return endpoint;
  }

  /** The one HTTP client every SDK client of this factory shares. */
  public SdkHttpClient httpClient() {
    return http;
  }

  /**
   * The same credentials and endpoint override for clients of another region (e.g. the Pricing API,
   * served only from a few endpoint regions).
   */
  public AwsClients withRegion(Region other) {
    return other.equals(region) ? this : new AwsClients(other, credentials, endpoint, http);
  }

  public <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C build(B builder) {
    builder
        .region(region)
        .credentialsProvider(credentials)
        .httpClient(http)
        .overrideConfiguration(
            ClientOverrideConfiguration.builder()
                .apiCallTimeout(Duration.ofSeconds(30))
                .apiCallAttemptTimeout(Duration.ofSeconds(10))
                .build());
    endpoint.ifPresent(builder::endpointOverride);
    return builder.build();
  }
}

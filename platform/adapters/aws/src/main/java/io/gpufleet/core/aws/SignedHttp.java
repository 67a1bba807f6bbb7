package io.gpufleet.core.aws;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;

/**
 * One SigV4-signed HTTP exchange with an AWS service, over the SDK's own signer ({@link
 * AwsV4HttpSigner}) and HTTP client: the transport under the project's small protocol clients
 * ({@link Ec2Query}, {@link AwsJson}, the S3 and query clients). Credentials are resolved from the
 * given provider for every request (a renewable chain, so a SnapStart restore signs with fresh
 * ones). Each protocol client builds its request, reads its answer and maps errors; this class only
 * signs, sends and reads the whole answer.
 */
public final class SignedHttp {
  /** A whole answer: status, headers (names as sent), body. */
  public record Answer(int status, Map<String, List<String>> headers, byte[] body) {
    /** The first value of a header, its name compared without case. */
    public Optional<String> header(String name) {
      for (var e : headers.entrySet()) {
        if (e.getKey() != null && e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
          return Optional.of(e.getValue().get(0));
        }
      }
      return Optional.empty();
    }

    public boolean ok() {
      return status / 100 == 2;
    }

    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final Region region;
  private final String signingName;
  private final AwsCredentialsProvider credentials;
  private final SdkHttpClient http;
  private final Consumer<SignRequest.Builder<AwsCredentialsIdentity>> signing;
  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

  public SignedHttp(
      Region region, String signingName, AwsCredentialsProvider credentials, SdkHttpClient http) {
    this(region, signingName, credentials, http, r -> {});
  }

  /**
   * @param signing further signer properties of this service (S3: no double URL encoding, no path
   *     normalisation)
   */
  public SignedHttp(
      Region region,
      String signingName,
      AwsCredentialsProvider credentials,
      SdkHttpClient http,
      Consumer<SignRequest.Builder<AwsCredentialsIdentity>> signing) {
    this.region = region;
    this.signingName = signingName;
    this.credentials = credentials;
    this.http = http;
    this.signing = signing;
  }

  public Region region() {
    return region;
  }

  public String signingName() {
    return signingName;
  }

  /**
   * Signs {@code request} with {@code body} as its payload, sends it and reads the whole answer.
   *
   * @throws UncheckedIOException when no answer came (connection refused, timeout, reset)
   */
  public Answer send(SdkHttpRequest request, byte[] body) {
    ContentStreamProvider payload = body == null ? null : ContentStreamProvider.fromByteArray(body);
    var signed =
        signer.sign(
            r -> {
              r.identity(credentials.resolveCredentials())
                  .request(request)
                  .putProperty(AwsV4HttpSigner.REGION_NAME, region.id())
                  .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, signingName);
              if (payload != null) {
                r.payload(payload);
              }
              signing.accept(r);
            });
    try {
      var execute = HttpExecuteRequest.builder().request(signed.request());
      if (payload != null) {
        execute.contentStreamProvider(signed.payload().orElse(payload));
      }
      var response = http.prepareRequest(execute.build()).call();
      Optional<? extends InputStream> stream = response.responseBody();
      byte[] answer;
      try (InputStream in = stream.isPresent() ? stream.get() : InputStream.nullInputStream()) {
        answer = in.readAllBytes();
      }
      return new Answer(
          response.httpResponse().statusCode(), response.httpResponse().headers(), answer);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A form-encoded {@code POST} of a query-style protocol (EC2's, the AWS query protocol) to {@code
   * endpoint}, signed and sent.
   *
   * @throws UncheckedIOException when no answer came
   */
  public Answer postForm(URI endpoint, String form) {
    byte[] body = form.getBytes(StandardCharsets.UTF_8);
    return send(
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.POST)
            .uri(endpoint)
            .putHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            .putHeader("Content-Length", String.valueOf(body.length))
            .build(),
        body);
  }

  /**
   * Where a service of {@code region} answers: the override, else {@code AWS_ENDPOINT_URL_<ID>} or
   * {@code AWS_ENDPOINT_URL} (as the SDK honours them; {@code envId} is the service id upper-cased
   * with underscores, e.g. {@code SERVICE_QUOTAS}), else {@code https://<prefix>.<region>.<dns
   * suffix of the region's partition>/}.
   */
  public static URI endpoint(
      String endpointPrefix,
      String envId,
      Region region,
      Optional<URI> override,
      Map<String, String> env) {
    if (override.isPresent()) {
      return override.get();
    }
    for (String key : List.of("AWS_ENDPOINT_URL_" + envId, "AWS_ENDPOINT_URL")) {
      String v = env.get(key);
      if (v != null && !v.isBlank()) {
        return URI.create(v.trim());
      }
    }
    String id = region.id();
    if (!id.matches("[a-z]{2}(-[a-z]+)+-[0-9]+")) {
      throw new IllegalArgumentException("not an AWS region name: " + id);
    }
    return URI.create("https://" + endpointPrefix + "." + id + "." + dnsSuffix(id) + "/");
  }

  /**
   * Where the service {@code serviceId} (botocore's, e.g. {@code Service Quotas}) answers for the
   * clients {@code aws}: their endpoint override, else the environment's, else the partition's.
   */
  public static URI endpoint(AwsClients aws, String endpointPrefix, String serviceId) {
    return endpoint(
        endpointPrefix, envId(serviceId), aws.region(), aws.endpointOverride(), System.getenv());
  }

  /** A service id as {@code AWS_ENDPOINT_URL_<ID>} spells it ({@code SERVICE_QUOTAS}). */
  public static String envId(String serviceId) {
    return serviceId.toUpperCase(java.util.Locale.ROOT).replace(' ', '_');
  }

  /** The DNS suffix of the region's partition (aws, aws-cn, aws-us-gov, the isolated ones). */
  static String dnsSuffix(String region) {
    if (region.startsWith("cn-")) {
      return "amazonaws.com.cn";
    } else if (region.startsWith("us-isob-")) {
      return "sc2s.sgov.gov";
    } else if (region.startsWith("us-iso-")) {
      return "c2s.ic.gov";
    }
    // aws and aws-us-gov share amazonaws.com
    return "amazonaws.com";
  }

  /**
   * Init warm-up (no network, no real credentials): the SDK's credentials chain built and closed
   * unused, and a request signed with fixed dummy keys for a fixed date and thrown away, so that a
   * function's first event does not load these classes. The function's own chain still resolves the
   * real credentials on its first call. No HTTP client is built here: a URL-connection client makes
   * its TLS context (trust store included) when it is built, and every function's INIT builds its
   * one real client anyway ({@link AwsClients}, for the EKS lookup); a throwaway one per prime was
   * that work again each time.
   */
  public static void prime() {
    prime(
        "ec2",
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.POST)
            .uri(URI.create("https://ec2.us-east-1.amazonaws.com/"))
            .putHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            .build(),
        "Action=DescribeRegions".getBytes(StandardCharsets.UTF_8),
        r -> {});
  }

  /**
   * {@link #prime()} with a service's own request, payload (null for none) and signer properties
   * (S3's differ), so that the signer paths that service's first call takes are loaded too.
   */
  public static void prime(
      String signingName,
      SdkHttpRequest request,
      byte[] payload,
      Consumer<SignRequest.Builder<AwsCredentialsIdentity>> signing) {
    DefaultCredentialsProvider.builder().build().close();
    AwsV4HttpSigner.create()
        .sign(
            r -> {
              r.identity(AwsBasicCredentials.create("AKIDPRIMINGONLY", "priming-only"))
                  .request(request)
                  .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                  .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, signingName)
                  .putProperty(
                      HttpSigner.SIGNING_CLOCK,
                      Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC));
              if (payload != null) {
                r.payload(ContentStreamProvider.fromByteArray(payload));
              }
              signing.accept(r);
            });
  }
}

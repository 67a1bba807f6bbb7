package io.gpufleet.core.aws;

import io.gpufleet.core.time.Sleeper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
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
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * A small EC2 client speaking EC2's Query protocol: form-encoded, SigV4-signed POSTs ({@code
 * Action=...&Version=2016-11-15&...}) answered with XML. The functions call a handful of read-only
 * EC2 operations; the SDK's EC2 module implements all ~750 of them (about 24 MB of every jar that
 * holds it, and ~770 classes loaded just to construct a client), so each adapter builds its request
 * here and reads only the fields its domain uses from the {@link Ec2Xml} answer.
 *
 * <p>Signing and HTTP are the SDK's own ({@link AwsV4HttpSigner}, the url-connection client of
 * {@link AwsClients}); credentials come from the same provider the SDK clients use (renewable, so a
 * SnapStart restore resolves them anew). Throttling and server errors are retried with capped
 * exponential backoff and full jitter through an injectable {@link Sleeper}; every other error is a
 * {@link Ec2QueryException} carrying EC2's code and message.
 *
 * <p>Tests hold every request to the EC2 service model: any {@link Ec2QueryInspector} found by
 * {@link ServiceLoader} on the class path sees each request before it is sent and may refuse it
 * (the testkit registers one; a deployment jar has none).
 */
public final class Ec2Query {
  /** The EC2 API version every request names. */
  public static final String VERSION = "2016-11-15";

  /** Error codes EC2 answers when a retry may succeed (with HTTP 5xx, always retried). */
  static final Set<String> RETRYABLE =
      Set.of(
          "RequestLimitExceeded",
          "Throttling",
          "ThrottlingException",
          "InternalError",
          "Unavailable",
          "ServiceUnavailable");

  /** More pages than this is a loop (or a listing no function should make): it fails. */
  public static final int DEFAULT_MAX_PAGES = 1000;

  /**
   * Retry policy: at most {@code maxAttempts} attempts; before attempt n+1 a sleep drawn uniformly
   * from [0, min(cap, base * 2^(n-1))] (full jitter).
   */
  public record Retry(
      int maxAttempts, Duration base, Duration cap, Sleeper sleeper, DoubleSupplier jitter) {
    public Retry {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
      }
    }

    /** As the SDK's standard retry mode: 3 attempts, 100 ms base, 20 s cap, real sleeps. */
    public static Retry standard() {
      return new Retry(
          3,
          Duration.ofMillis(100),
          Duration.ofSeconds(20),
          Sleeper.SYSTEM,
          () -> ThreadLocalRandom.current().nextDouble());
    }

    public Retry withSleeper(Sleeper other) {
      return new Retry(maxAttempts, base, cap, other, jitter);
    }

    /** The sleep before attempt {@code attempt + 1} (attempt counted from 1). */
    Duration backoff(int attempt) {
      long ceiling = base.toMillis() << Math.min(attempt - 1, 20);
      long bound = Math.min(cap.toMillis(), ceiling);
      return Duration.ofMillis((long) (jitter.getAsDouble() * bound));
    }
  }

  private final URI endpoint;
  private final Region region;
  private final AwsCredentialsProvider credentials;
  private final SdkHttpClient http;
  private final Retry retry;
  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

  public Ec2Query(
      URI endpoint,
      Region region,
      AwsCredentialsProvider credentials,
      SdkHttpClient http,
      Retry retry) {
    this.endpoint = endpoint;
    this.region = region;
    this.credentials = credentials;
    this.http = http;
    this.retry = retry;
  }

  /**
   * The region, credentials, HTTP client and endpoint override of {@code aws}; without an override,
   * {@code AWS_ENDPOINT_URL_EC2} or {@code AWS_ENDPOINT_URL} (as the SDK honours them), else EC2's
   * endpoint in the region's partition.
   */
  public static Ec2Query from(AwsClients aws) {
    return new Ec2Query(
        endpointFor(aws.region(), aws.endpointOverride(), System.getenv()),
        aws.region(),
        aws.credentials(),
        aws.httpClient(),
        Retry.standard());
  }

  /** Where EC2 of {@code region} answers: the override, the environment, or the partition. */
  public static URI endpointFor(Region region, Optional<URI> override, Map<String, String> env) {
    if (override.isPresent()) {
      return override.get();
    }
    for (String key : List.of("AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL")) {
      String v = env.get(key);
      if (v != null && !v.isBlank()) {
        return URI.create(v.trim());
      }
    }
    String id = region.id();
    if (!id.matches("[a-z]{2}(-[a-z]+)+-[0-9]+")) {
      throw new IllegalArgumentException("not an AWS region name: " + id);
    }
    return URI.create("https://ec2." + id + "." + dnsSuffix(id) + "/");
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

  /** The same client with another retry policy. */
  public Ec2Query withRetry(Retry other) {
    return new Ec2Query(endpoint, region, credentials, http, other);
  }

  public Region region() {
    return region;
  }

  public URI endpoint() {
    return endpoint;
  }

  /** Parameters of one request, in the order they go on the wire. */
  public static final class Params {
    private final String action;
    private final LinkedHashMap<String, String> values = new LinkedHashMap<>();
    private int filters;

    private Params(String action) {
      this.action = action;
      values.put("Action", action);
      values.put("Version", VERSION);
    }

    public static Params of(String action) {
      return new Params(action);
    }

    public String action() {
      return action;
    }

    /** A scalar member under its wire name ({@code MaxResults}, {@code InstanceType}). */
    public Params put(String name, Object value) {
      values.put(name, String.valueOf(value));
      return this;
    }

    /** A list member: {@code Name.1}, {@code Name.2}, ... (nothing for an empty list). */
    public Params list(String name, Collection<String> items) {
      int i = 0;
      for (String item : items) {
        values.put(name + "." + ++i, item);
      }
      return this;
    }

    /** The next {@code Filter.N}: its name and {@code Filter.N.Value.M} values. */
    public Params filter(String name, Collection<String> filterValues) {
      String prefix = "Filter." + ++filters;
      values.put(prefix + ".Name", name);
      return list(prefix + ".Value", filterValues);
    }

    Params copyWith(String name, String value) {
      var copy = new Params(action);
      copy.values.putAll(values);
      copy.filters = filters;
      copy.values.put(name, value);
      return copy;
    }

    /** Every parameter, Action and Version included (what an inspector sees). */
    public Map<String, String> asMap() {
      return java.util.Collections.unmodifiableMap(values);
    }

    String form() {
      var out = new StringBuilder();
      values.forEach(
          (k, v) ->
              out.append(out.isEmpty() ? "" : "&")
                  .append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                  .append('=')
                  .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
      return out.toString();
    }
  }

  /** One request (retried as the policy allows); the parsed answer. */
  public Ec2Xml call(Params params) {
    String form = params.form();
    for (int attempt = 1; ; attempt++) {
      // every attempt is a request on the wire: each is shown to the inspectors
      Inspectors.inspect(params.asMap());
      try {
        return Ec2Xml.parse(post(params.action(), form), params.action());
      } catch (Ec2QueryException e) {
        if (!e.retryable() || attempt >= retry.maxAttempts()) {
          throw e;
        }
        try {
          retry.sleeper().sleep(retry.backoff(attempt));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /**
   * Every page of a listing: the request, then again with each answer's {@code nextToken} until
   * none comes back; {@code page} sees each answer. Fails past {@code maxPages}.
   */
  public void paginate(Params params, int maxPages, Consumer<Ec2Xml> page) {
    Params next = params;
    var seen = new ArrayList<String>();
    for (int n = 1; n <= maxPages; n++) {
      Ec2Xml answer = call(next);
      page.accept(answer);
      String token = answer.text("nextToken");
      if (token == null || token.isEmpty()) {
        return;
      }
      if (seen.contains(token)) {
        throw new Ec2QueryException(
            params.action(), 200, "PaginationLoop", "nextToken repeated: " + token, null);
      }
      seen.add(token);
      next = params.copyWith("NextToken", token);
    }
    throw new Ec2QueryException(
        params.action(), 200, "TooManyPages", "more than " + maxPages + " pages", null);
  }

  public void paginate(Params params, Consumer<Ec2Xml> page) {
    paginate(params, DEFAULT_MAX_PAGES, page);
  }

  private byte[] post(String action, String form) {
    byte[] body = form.getBytes(StandardCharsets.UTF_8);
    SdkHttpRequest request =
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.POST)
            .uri(endpoint)
            .putHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            .putHeader("Content-Length", String.valueOf(body.length))
            .build();
    ContentStreamProvider payload = ContentStreamProvider.fromByteArray(body);
    var signed =
        signer.sign(
            r ->
                r.identity(credentials.resolveCredentials())
                    .request(request)
                    .payload(payload)
                    .putProperty(AwsV4HttpSigner.REGION_NAME, region.id())
                    .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "ec2"));
    int status;
    byte[] answer;
    try {
      var response =
          http.prepareRequest(
                  HttpExecuteRequest.builder()
                      .request(signed.request())
                      .contentStreamProvider(signed.payload().orElse(payload))
                      .build())
              .call();
      status = response.httpResponse().statusCode();
      Optional<? extends InputStream> stream = response.responseBody();
      try (InputStream in = stream.isPresent() ? stream.get() : InputStream.nullInputStream()) {
        answer = in.readAllBytes();
      }
    } catch (IOException | UncheckedIOException e) {
      throw new Ec2QueryException(action, 0, "TransportError", e.toString(), e);
    }
    if (status / 100 != 2) {
      throw Ec2QueryException.fromAnswer(action, status, answer);
    }
    return answer;
  }

  /**
   * Init warm-up (no network, no real credentials): the classes of a first EC2 call — the SDK's
   * credentials chain and URL-connection HTTP client built and closed unused, a form signed with
   * fixed dummy keys for a fixed date, an EC2 answer parsed — so that the first event does not load
   * them. Nothing of it is kept: the signature is thrown away, and the function's own chain still
   * resolves the real credentials on its first call.
   */
  public static void prime() {
    DefaultCredentialsProvider.builder().build().close();
    UrlConnectionHttpClient.builder().build().close();
    SdkHttpRequest request =
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.POST)
            .uri(URI.create("https://ec2.us-east-1.amazonaws.com/"))
            .putHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            .build();
    AwsV4HttpSigner.create()
        .sign(
            r ->
                r.identity(AwsBasicCredentials.create("AKIDPRIMINGONLY", "priming-only"))
                    .request(request)
                    .payload(ContentStreamProvider.fromUtf8String("Action=DescribeRegions"))
                    .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                    .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "ec2")
                    .putProperty(
                        HttpSigner.SIGNING_CLOCK,
                        Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)));
    Ec2Xml.prime();
  }

  /** The inspectors on the class path, found once per JVM. */
  private static final class Inspectors {
    static final List<Ec2QueryInspector> ALL =
        ServiceLoader.load(Ec2QueryInspector.class, Ec2Query.class.getClassLoader()).stream()
            .map(ServiceLoader.Provider::get)
            .toList();

    static void inspect(Map<String, String> params) {
      for (var inspector : ALL) {
        inspector.inspect(params);
      }
    }
  }
}

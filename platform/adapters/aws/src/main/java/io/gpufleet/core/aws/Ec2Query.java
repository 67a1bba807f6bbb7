package io.gpufleet.core.aws;

import io.gpufleet.core.time.Sleeper;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
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

  private final URI endpoint;
  private final SignedHttp http;
  private final AwsRetry retry;

  public Ec2Query(
      URI endpoint,
      Region region,
      AwsCredentialsProvider credentials,
      SdkHttpClient http,
      AwsRetry retry) {
    this(endpoint, new SignedHttp(region, "ec2", credentials, http), retry);
  }

  private Ec2Query(URI endpoint, SignedHttp http, AwsRetry retry) {
    this.endpoint = endpoint;
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
        AwsRetry.standard());
  }

  /** Where EC2 of {@code region} answers: the override, the environment, or the partition. */
  public static URI endpointFor(Region region, Optional<URI> override, Map<String, String> env) {
    return SignedHttp.endpoint("ec2", "EC2", region, override, env);
  }

  /** The same client with another retry policy. */
  public Ec2Query withRetry(AwsRetry other) {
    return new Ec2Query(endpoint, http, other);
  }

  public Region region() {
    return http.region();
  }

  public URI endpoint() {
    return endpoint;
  }

  /** Parameters of one request, in the order they go on the wire. */
  public static final class Params extends QueryForm<Params> {
    private int filters;

    private Params(String action) {
      super(action, VERSION);
    }

    public static Params of(String action) {
      return new Params(action);
    }

    @Override
    protected Params self() {
      return this;
    }

    /** A list member: {@code Name.1}, {@code Name.2}, ... (nothing for an empty list). */
    public Params list(String name, Collection<String> items) {
      return numbered(name, items);
    }

    /** The next {@code Filter.N}: its name and {@code Filter.N.Value.M} values. */
    public Params filter(String name, Collection<String> filterValues) {
      String prefix = "Filter." + ++filters;
      put(prefix + ".Name", name);
      return list(prefix + ".Value", filterValues);
    }

    Params copyWith(String name, String value) {
      var copy = new Params(action()).copyOf(this);
      copy.filters = filters;
      return copy.put(name, value);
    }
  }

  /** One request (retried as the policy allows); the parsed answer. */
  public Ec2Xml call(Params params) {
    String form = params.form();
    return retry.run(
        () -> {
          // every attempt is a request on the wire: each is shown to the inspectors
          Inspectors.inspect(params.asMap());
          return Ec2Xml.parse(post(params.action(), form), params.action());
        });
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
    SignedHttp.Answer answer;
    try {
      answer = http.postForm(endpoint, form);
    } catch (UncheckedIOException e) {
      throw new Ec2QueryException(action, 0, "TransportError", e.getCause().toString(), e);
    }
    if (!answer.ok()) {
      throw Ec2QueryException.fromAnswer(action, answer.status(), answer.body());
    }
    return answer.body();
  }

  /**
   * Init warm-up (no network, no real credentials): the classes of a first EC2 call — {@link
   * SignedHttp#prime()} and an EC2 answer parsed — so that the first event does not load them.
   */
  public static void prime() {
    SignedHttp.prime();
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

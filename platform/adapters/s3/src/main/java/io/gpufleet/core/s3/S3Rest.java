package io.gpufleet.core.s3;

import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsRetry;
import io.gpufleet.core.aws.Ec2Xml;
import io.gpufleet.core.aws.SignedHttp;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;

/**
 * A small S3 REST client for the three object operations the functions use (PutObject with its
 * conditional writes, GetObject, DeleteObject). It replaces the SDK's S3 client, whose first call
 * loads some 770 S3 classes, the S3 endpoint rules and the REST-XML protocol stack; signing,
 * credentials and HTTP stay the SDK's ({@link SignedHttp}).
 *
 * <p>Addressing as the SDK's S3 client: virtual-hosted style on AWS's own endpoint ({@code
 * https://<bucket>.s3.<region>.<dns suffix>/<key>}), path style for a bucket name that cannot be a
 * host label (dots, upper case, underscores) and for any other endpoint ({@code
 * AWS_ENDPOINT_URL_S3}, {@code AWS_ENDPOINT_URL} or an override: moto, LocalStack; the SDK's client
 * would try {@code <bucket>.<host>} for a host name there, which a loopback emulator does not
 * resolve). Keys are percent-encoded per segment with {@code /} kept; the signer neither encodes
 * the path again nor normalises it, and signs the payload's SHA-256 into {@code
 * x-amz-content-sha256}, which S3 requires of every SigV4 request.
 *
 * <p>Errors are {@link S3RestException}s with S3's code; server errors and {@code SlowDown} are
 * retried by the {@link AwsRetry}. The testkit's inspector holds every request to botocore's S3
 * model (method, request URI, header names).
 */
public final class S3Rest {
  public static final String SERVICE_ID = "S3";
  public static final String ENDPOINT_PREFIX = "s3";
  public static final String SIGNING_NAME = "s3";

  /** A name that can be the first label of a host name under TLS (the SDK's test, no dots). */
  private static final Pattern VIRTUAL_HOSTABLE =
      Pattern.compile("[a-z0-9][a-z0-9-]{1,61}[a-z0-9]");

  /** Bucket names S3 accepts, legacy us-east-1 ones included; anything else is refused here. */
  private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9._-]{1,255}");

  /** S3's signer properties: the path signed as sent, the payload hashed and not chunked. */
  static final Consumer<SignRequest.Builder<AwsCredentialsIdentity>> SIGNING =
      r ->
          r.putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
              .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false)
              .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true)
              .putProperty(AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, false);

  /** An object as read: its bytes, ETag (quoted, as S3 sends it) and content type. */
  public record Blob(byte[] body, String etag, String contentType) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** The condition of a write: none, {@code If-None-Match: *}, or {@code If-Match: <etag>}. */
  public record Condition(String header, String value) {
    public static final Condition NONE = new Condition(null, null);

    /** Write only if no object has the key. */
    public static Condition ifAbsent() {
      return new Condition("If-None-Match", "*");
    }

    /** Write only if the object's ETag is still {@code etag}. */
    public static Condition ifMatch(String etag) {
      if (etag == null || etag.isBlank()) {
        throw new IllegalArgumentException("If-Match needs the ETag read, not '" + etag + "'");
      }
      return new Condition("If-Match", etag);
    }
  }

  private final URI endpoint;
  private final boolean pathStyle;
  private final SignedHttp http;
  private final AwsRetry retry;

  /**
   * @param endpoint where S3 answers, without a path
   * @param pathStyle every bucket in the path (emulators), else virtual-hosted where the name
   *     allows
   */
  public S3Rest(
      URI endpoint,
      boolean pathStyle,
      Region region,
      AwsCredentialsProvider credentials,
      SdkHttpClient http,
      AwsRetry retry) {
    this(
        endpoint,
        pathStyle,
        new SignedHttp(region, SIGNING_NAME, credentials, http, SIGNING),
        retry);
  }

  private S3Rest(URI endpoint, boolean pathStyle, SignedHttp http, AwsRetry retry) {
    String path = endpoint.getRawPath();
    if (endpoint.getScheme() == null
        || endpoint.getRawAuthority() == null
        || (path != null && !path.isEmpty() && !path.equals("/"))
        || endpoint.getRawQuery() != null) {
      throw new IllegalArgumentException(
          "an S3 endpoint is scheme://host[:port] with no path or query: " + endpoint);
    }
    this.endpoint = endpoint;
    this.pathStyle = pathStyle;
    this.http = http;
    this.retry = retry;
  }

  /**
   * S3 in the region of {@code aws}, with its credentials and HTTP client: the endpoint override of
   * {@code aws}, else {@code AWS_ENDPOINT_URL_S3} or {@code AWS_ENDPOINT_URL} (path style), else
   * S3's endpoint in the region's partition (virtual-hosted style).
   */
  public static S3Rest from(AwsClients aws) {
    return from(aws, System.getenv());
  }

  static S3Rest from(AwsClients aws, Map<String, String> env) {
    URI endpoint =
        SignedHttp.endpoint(ENDPOINT_PREFIX, SERVICE_ID, aws.region(), aws.endpointOverride(), env);
    boolean awsOwn;
    try {
      awsOwn =
          endpoint.equals(
              SignedHttp.endpoint(
                  ENDPOINT_PREFIX, SERVICE_ID, aws.region(), Optional.empty(), Map.of()));
    } catch (IllegalArgumentException notAnAwsRegion) {
      awsOwn = false; // an emulator's own region name, behind an override
    }
    return new S3Rest(
        endpoint, !awsOwn, aws.region(), aws.credentials(), aws.httpClient(), AwsRetry.standard());
  }

  /** The same client with another retry policy. */
  public S3Rest withRetry(AwsRetry other) {
    return new S3Rest(endpoint, pathStyle, http, other);
  }

  public URI endpoint() {
    return endpoint;
  }

  public Region region() {
    return http.region();
  }

  /**
   * Writes an object (PutObject); its new ETag, or null when S3 sent none.
   *
   * @param contentType stored with the object; null stores {@code application/octet-stream}
   * @throws S3RestException with {@link S3RestException#conditionRefused()} when {@code condition}
   *     did not hold (412) or a concurrent conditional write won (409); {@code NoSuchKey} (404) for
   *     an {@code If-Match} write of an object that is gone
   */
  public String put(
      String bucket, String key, byte[] body, String contentType, Condition condition) {
    var request =
        request(SdkHttpMethod.PUT, bucket, key)
            .putHeader(
                "Content-Type", contentType == null ? "application/octet-stream" : contentType)
            .putHeader("Content-Length", String.valueOf(body.length));
    if (condition.header() != null) {
      request.putHeader(condition.header(), condition.value());
    }
    return call("PutObject", bucket, key, request.build(), body).header("ETag").orElse(null);
  }

  /** An unconditional {@link #put(String, String, byte[], String, Condition)}. */
  public String put(String bucket, String key, byte[] body, String contentType) {
    return put(bucket, key, body, contentType, Condition.NONE);
  }

  /**
   * Reads an object (GetObject); empty when S3 answers 404 {@code NoSuchKey} (or a 404 with no
   * body). A missing bucket is an {@link S3RestException} ({@link S3RestException#noSuchBucket()}).
   */
  public Optional<Blob> get(String bucket, String key) {
    try {
      var answer =
          call("GetObject", bucket, key, request(SdkHttpMethod.GET, bucket, key).build(), null);
      return Optional.of(
          new Blob(
              answer.body(),
              answer.header("ETag").orElse(null),
              answer.header("Content-Type").orElse(null)));
    } catch (S3RestException e) {
      if (e.noSuchKey()) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Deletes an object (DeleteObject); S3 answers 204 whether or not it existed. */
  public void delete(String bucket, String key) {
    call("DeleteObject", bucket, key, request(SdkHttpMethod.DELETE, bucket, key).build(), null);
  }

  /** Where an object is: virtual-hosted or path style, the key encoded. */
  URI objectUri(String bucket, String key) {
    if (bucket == null || !BUCKET.matcher(bucket).matches()) {
      throw new IllegalArgumentException("not an S3 bucket name: '" + bucket + "'");
    }
    if (key == null || key.isEmpty()) {
      // an empty key would address the bucket itself (GET lists it, DELETE deletes it)
      throw new IllegalArgumentException("an S3 object key is empty (bucket " + bucket + ")");
    }
    String authority = endpoint.getRawAuthority();
    String path = "/" + encodeKey(key);
    if (pathStyle || !VIRTUAL_HOSTABLE.matcher(bucket).matches()) {
      path = "/" + bucket + path;
    } else {
      authority = bucket + "." + authority;
    }
    return URI.create(endpoint.getScheme() + "://" + authority + path);
  }

  /**
   * A key as S3's REST API carries it in the path: every byte of its UTF-8 form percent-encoded
   * except the unreserved characters of RFC 3986 and {@code /}.
   */
  static String encodeKey(String key) {
    var out = new StringBuilder(key.length() + 16);
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == '.'
          || c == '~'
          || c == '/') {
        out.append((char) c);
      } else {
        out.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }

  private SdkHttpRequest.Builder request(SdkHttpMethod method, String bucket, String key) {
    return SdkHttpRequest.builder().method(method).uri(objectUri(bucket, key));
  }

  private SignedHttp.Answer call(
      String operation, String bucket, String key, SdkHttpRequest request, byte[] body) {
    return retry.run(
        () -> {
          // every attempt is a request on the wire: each is shown to the inspectors
          Inspectors.inspect(operation, bucket, key, request, body);
          SignedHttp.Answer answer;
          try {
            answer = http.send(request, body);
          } catch (UncheckedIOException e) {
            throw new S3RestException(
                operation, 0, "TransportError", e.getCause().toString(), null, e);
          }
          if (!answer.ok()) {
            throw error(operation, answer);
          }
          return answer;
        });
  }

  /** S3's error document, or a code named from the status when the answer has no body. */
  static S3RestException error(String operation, SignedHttp.Answer answer) {
    String requestId = answer.header("x-amz-request-id").orElse(null);
    String code = null;
    String message = null;
    if (answer.body().length > 0) {
      try {
        Ec2Xml error = Ec2Xml.parse(answer.body(), operation);
        if (error.name().equals("Error")) {
          code = blankToNull(error.text("Code"));
          message = blankToNull(error.text("Message"));
          requestId = Optional.ofNullable(blankToNull(error.text("RequestId"))).orElse(requestId);
        }
      } catch (AwsCallException notXml) {
        String text = answer.text();
        message = text.substring(0, Math.min(200, text.length()));
      }
    }
    if (code == null) {
      code =
          switch (answer.status()) {
            case 404 -> "NoSuchKey"; // a HEAD-style answer: the object is not there
            case 409 -> "ConditionalRequestConflict";
            case 412 -> "PreconditionFailed";
            case 503 -> "ServiceUnavailable";
            default -> "HTTP" + answer.status();
          };
    }
    return new S3RestException(operation, answer.status(), code, message, requestId, null);
  }

  private static String blankToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  /**
   * Init warm-up (no network, no real credentials): {@link SignedHttp#prime()}'s classes with an S3
   * PutObject signed as this client signs it (payload hashed, path kept), and an object URI built,
   * so that a function's first S3 call does not load them.
   */
  public static void prime() {
    var client =
        new S3Rest(
            URI.create("https://s3.us-east-1.amazonaws.com"),
            false,
            Region.US_EAST_1,
            () -> {
              throw new IllegalStateException("priming resolves no credentials");
            },
            null,
            AwsRetry.standard());
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    SignedHttp.prime(
        SIGNING_NAME,
        client
            .request(SdkHttpMethod.PUT, "gpufleet-priming", "prime/a b.json")
            .putHeader("Content-Type", "application/json")
            .putHeader("Content-Length", String.valueOf(body.length))
            .putHeader("If-None-Match", "*")
            .build(),
        body,
        SIGNING);
  }

  /** The inspectors on the class path, found once per JVM. */
  private static final class Inspectors {
    static final List<S3RestInspector> ALL =
        ServiceLoader.load(S3RestInspector.class, S3Rest.class.getClassLoader()).stream()
            .map(ServiceLoader.Provider::get)
            .toList();

    static void inspect(
        String operation, String bucket, String key, SdkHttpRequest request, byte[] body) {
      for (var inspector : ALL) {
        inspector.inspect(operation, bucket, key, request, body);
      }
    }
  }
}

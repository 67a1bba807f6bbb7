package io.gpufleet.core.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Consumer;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;

/**
 * A small client for AWS's JSON RPC protocols (awsJson1_0 / awsJson1_1): a SigV4-signed {@code POST
 * /} with {@code X-Amz-Target: <prefix>.<Operation>} and the input as a JSON object, answered with
 * a JSON object. It replaces the SDK's service clients for the few operations each function calls
 * (Pricing, Service Quotas, CloudWatch, Cost Explorer, EventBridge, Secrets Manager): an SDK client
 * loads its whole service model, endpoint rules and protocol stack at its first call, which is most
 * of a cold start. Signing, credentials and HTTP stay the SDK's ({@link SignedHttp}).
 *
 * <p>Members go on the wire under the service model's names (the testkit's inspector holds every
 * request to botocore's model: operation, member names, types, required members). Errors are an
 * {@link AwsCallException} with the service's code ({@code __type} without its namespace, or {@code
 * x-amzn-ErrorType}); throttling and server errors are retried by the {@link AwsRetry}.
 */
public final class AwsJson {
  /** What a JSON-protocol service is called on the wire (botocore's service metadata). */
  public record Service(
      String serviceId,
      String endpointPrefix,
      String signingName,
      String targetPrefix,
      String jsonVersion)
      implements ServiceWire.Named {}

  public static final Service PRICING =
      new Service("Pricing", "api.pricing", "pricing", "AWSPriceListService", "1.1");
  public static final Service SERVICE_QUOTAS =
      new Service(
          "Service Quotas", "servicequotas", "servicequotas", "ServiceQuotasV20190624", "1.1");
  public static final Service CLOUDWATCH =
      new Service("CloudWatch", "monitoring", "monitoring", "GraniteServiceVersion20100801", "1.0");
  public static final Service COST_EXPLORER =
      new Service("Cost Explorer", "ce", "ce", "AWSInsightsIndexService", "1.1");
  public static final Service EVENTBRIDGE =
      new Service("EventBridge", "events", "events", "AWSEvents", "1.1");
  public static final Service SECRETS_MANAGER =
      new Service("Secrets Manager", "secretsmanager", "secretsmanager", "secretsmanager", "1.1");
  public static final Service SSM = new Service("SSM", "ssm", "ssm", "AmazonSSM", "1.1");

  /** Error codes meaning "slow down" or "try again" (with HTTP 5xx and no answer, retried). */
  static final Set<String> RETRYABLE =
      Set.of(
          "Throttling",
          "ThrottlingException",
          "ThrottledException",
          "RequestThrottledException",
          "TooManyRequestsException",
          "RequestLimitExceeded",
          "RequestThrottled",
          "InternalFailure",
          "InternalServiceError",
          "InternalErrorException",
          "ServiceUnavailable",
          "ServiceUnavailableException",
          "RequestTimeout",
          "RequestTimeoutException");

  /** More pages than this is a loop (or a listing no function should make): it fails. */
  public static final int DEFAULT_MAX_PAGES = 1000;

  private final Service service;
  private final ServiceWire wire;

  /** {@code service} over {@code wire} (its signing name is the service's). */
  public AwsJson(Service service, ServiceWire wire) {
    this.service = service;
    this.wire = wire;
  }

  /** {@code service} for the clients {@code aws}: see {@link ServiceWire#from}. */
  public static AwsJson from(AwsClients aws, Service service) {
    return new AwsJson(service, ServiceWire.from(aws, service));
  }

  /** The same client with another retry policy. */
  public AwsJson withRetry(AwsRetry other) {
    return new AwsJson(service, wire.withRetry(other));
  }

  public Service service() {
    return service;
  }

  public URI endpoint() {
    return wire.endpoint();
  }

  public Region region() {
    return wire.region();
  }

  /** A fresh, empty input object to fill. */
  public static ObjectNode input() {
    return Json.MAPPER.createObjectNode();
  }

  /**
   * A timestamp as the JSON protocols send one by default: epoch seconds, a JSON number (with a
   * fraction only when the instant has one).
   */
  public static BigDecimal timestamp(Instant at) {
    BigDecimal seconds = BigDecimal.valueOf(at.getEpochSecond());
    // a whole second stays an integer (stripping its zeros would write 1.7644608E+9)
    return at.getNano() == 0
        ? seconds
        : seconds.add(BigDecimal.valueOf(at.getNano(), 9)).stripTrailingZeros();
  }

  /** One request (retried as the policy allows); the answer's JSON object. */
  public JsonNode call(String operation, ObjectNode input) {
    byte[] body;
    try {
      body = Json.MAPPER.writeValueAsBytes(input);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return wire.retry()
        .run(
            () -> {
              // every attempt is a request on the wire: each is shown to the inspectors
              Inspectors.inspect(service, operation, input);
              return post(operation, body);
            });
  }

  /**
   * Every page of a listing: the request, then again with each answer's {@code NextToken} until
   * none comes back; {@code page} sees each answer. Fails past {@code maxPages} or on a repeated
   * token.
   */
  public void paginate(String operation, ObjectNode input, int maxPages, Consumer<JsonNode> page) {
    paginate(operation, input, "NextToken", maxPages, page);
  }

  public void paginate(String operation, ObjectNode input, Consumer<JsonNode> page) {
    paginate(operation, input, DEFAULT_MAX_PAGES, page);
  }

  /**
   * As {@link #paginate(String, ObjectNode, int, Consumer)} for an operation whose page token is
   * another member, the same in request and answer (Cost Explorer's {@code NextPageToken}).
   */
  public void paginate(
      String operation,
      ObjectNode input,
      String tokenMember,
      int maxPages,
      Consumer<JsonNode> page) {
    ObjectNode next = input;
    var seen = new ArrayList<String>();
    for (int n = 1; n <= maxPages; n++) {
      JsonNode answer = call(operation, next);
      page.accept(answer);
      String token = answer.path(tokenMember).asText("");
      if (token.isEmpty()) {
        return;
      }
      if (seen.contains(token)) {
        throw failure(
            service.serviceId(),
            operation,
            200,
            "PaginationLoop",
            tokenMember + " repeated: " + token,
            null,
            null);
      }
      seen.add(token);
      next = input.deepCopy();
      next.put(tokenMember, token);
    }
    throw failure(
        service.serviceId(),
        operation,
        200,
        "TooManyPages",
        "more than " + maxPages + " pages",
        null,
        null);
  }

  private JsonNode post(String operation, byte[] body) {
    SdkHttpRequest request =
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.POST)
            .uri(wire.endpoint())
            .putHeader("Content-Type", "application/x-amz-json-" + service.jsonVersion())
            .putHeader("X-Amz-Target", service.targetPrefix() + "." + operation)
            .putHeader("Content-Length", String.valueOf(body.length))
            .build();
    return exchange(wire.http(), service.serviceId(), operation, request, body);
  }

  /**
   * Sends one signed request and reads a JSON answer, as the JSON protocols (awsJson and rest-json)
   * answer: the object of a 2xx answer, else an {@link AwsCallException} with the error code
   * ({@code __type} or {@code x-amzn-ErrorType}, namespace removed), message and request id, judged
   * retryable by status and code. No answer at all is a retryable {@code TransportError}.
   */
  static JsonNode exchange(
      SignedHttp http, String serviceId, String operation, SdkHttpRequest request, byte[] body) {
    SignedHttp.Answer answer;
    try {
      answer = http.send(request, body);
    } catch (UncheckedIOException e) {
      throw failure(serviceId, operation, 0, "TransportError", e.getCause().toString(), null, e);
    }
    String requestId =
        answer.header("x-amzn-RequestId").or(() -> answer.header("x-amz-request-id")).orElse(null);
    JsonNode json = null;
    try {
      json = answer.body().length == 0 ? input() : Json.MAPPER.readTree(answer.body());
    } catch (IOException notJson) {
      // judged below by the status
    }
    if (answer.ok()) {
      if (json == null || !json.isObject()) {
        throw failure(
            serviceId,
            operation,
            answer.status(),
            "MalformedAnswer",
            snippet(answer),
            requestId,
            null);
      }
      return json;
    }
    String code = errorCode(json, answer.header("x-amzn-ErrorType"));
    String message =
        json == null
            ? snippet(answer)
            : firstText(json, "message", "Message", "errorMessage").orElse(null);
    throw failure(
        serviceId,
        operation,
        answer.status(),
        code == null ? "HTTP" + answer.status() : code,
        message,
        requestId,
        null);
  }

  /** The error code of a JSON error answer: {@code __type} or the header, namespace removed. */
  static String errorCode(JsonNode json, Optional<String> header) {
    String raw =
        (json == null ? Optional.<String>empty() : firstText(json, "__type", "code", "Code"))
            .or(() -> header)
            .orElse(null);
    if (raw == null || raw.isBlank()) {
      return null;
    }
    int colon = raw.indexOf(':');
    if (colon >= 0) {
      raw = raw.substring(0, colon);
    }
    int hash = raw.lastIndexOf('#');
    return hash >= 0 ? raw.substring(hash + 1) : raw;
  }

  private static Optional<String> firstText(JsonNode json, String... names) {
    for (String name : names) {
      JsonNode v = json.get(name);
      if (v != null && v.isTextual() && !v.asText().isEmpty()) {
        return Optional.of(v.asText());
      }
    }
    return Optional.empty();
  }

  private static String snippet(SignedHttp.Answer answer) {
    String text = answer.text();
    return text.substring(0, Math.min(200, text.length()));
  }

  static AwsCallException failure(
      String serviceId,
      String operation,
      int status,
      String code,
      String message,
      String requestId,
      Throwable cause) {
    return new AwsCallException(
        serviceId,
        operation,
        status,
        code,
        message,
        requestId,
        AwsCallException.retryable(status, code, RETRYABLE),
        cause);
  }

  /** The inspectors on the class path, found once per JVM. */
  private static final class Inspectors {
    static final List<AwsJsonInspector> ALL =
        ServiceLoader.load(AwsJsonInspector.class, AwsJson.class.getClassLoader()).stream()
            .map(ServiceLoader.Provider::get)
            .toList();

    static void inspect(Service service, String operation, JsonNode input) {
      for (var inspector : ALL) {
        inspector.inspect(service, operation, input);
      }
    }
  }
}

package io.gpufleet.core.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * A small client for the GET operations of AWS's rest-json protocol (EKS DescribeCluster): the
 * operation's request URI with its URI members filled in (percent-encoded), SigV4-signed, answered
 * with a JSON object. Like {@link AwsJson} it replaces an SDK service client for the one call a
 * function makes, on the SDK's signer, credentials and HTTP ({@link SignedHttp}); errors are mapped
 * as {@link AwsJson} maps them ({@link AwsCallException}, throttling and 5xx retried).
 */
public final class AwsRestJson {
  /** What a rest-json service is called on the wire (botocore's service metadata). */
  public record Service(String serviceId, String endpointPrefix, String signingName)
      implements ServiceWire.Named {}

  public static final Service EKS = new Service("EKS", "eks", "eks");

  private static final Pattern URI_MEMBER = Pattern.compile("\\{([A-Za-z0-9_]+)\\+?}");

  private final Service service;
  private final ServiceWire wire;

  /** {@code service} over {@code wire} (its signing name is the service's). */
  public AwsRestJson(Service service, ServiceWire wire) {
    this.service = service;
    this.wire = wire;
  }

  /** {@code service} for the clients {@code aws}: see {@link ServiceWire#from}. */
  public static AwsRestJson from(AwsClients aws, Service service) {
    return new AwsRestJson(service, ServiceWire.from(aws, service));
  }

  public URI endpoint() {
    return wire.endpoint();
  }

  /**
   * One GET (retried as the policy allows): {@code requestUri} as the model spells it ({@code
   * /clusters/{name}}), each {@code {member}} taken from {@code input}; the answer's JSON object.
   *
   * @throws IllegalArgumentException when a URI member is missing or empty, or {@code input} holds
   *     a member the URI has no place for (before anything is sent)
   */
  public JsonNode get(String operation, String requestUri, ObjectNode input) {
    String path = fill(requestUri, input);
    URI uri = URI.create(wire.endpoint().toString().replaceAll("/+$", "") + path);
    SdkHttpRequest request = SdkHttpRequest.builder().method(SdkHttpMethod.GET).uri(uri).build();
    return wire.retry()
        .run(
            () -> {
              Inspectors.inspect(service, operation, "GET", requestUri, input);
              return AwsJson.exchange(wire.http(), service.serviceId(), operation, request, null);
            });
  }

  /** The request URI with each member's value percent-encoded (a greedy {@code {x+}} keeps '/'). */
  static String fill(String requestUri, ObjectNode input) {
    var used = new java.util.HashSet<String>();
    Matcher m = URI_MEMBER.matcher(requestUri);
    var out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1);
      JsonNode v = input.get(name);
      if (v == null || !v.isValueNode() || v.asText().isEmpty()) {
        throw new IllegalArgumentException(
            requestUri + ": the URI member '" + name + "' is missing or empty");
      }
      used.add(name);
      String encoded = URLEncoder.encode(v.asText(), StandardCharsets.UTF_8).replace("+", "%20");
      if (m.group().endsWith("+}")) {
        encoded = encoded.replace("%2F", "/");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(encoded));
    }
    m.appendTail(out);
    input
        .fieldNames()
        .forEachRemaining(
            f -> {
              if (!used.contains(f)) {
                throw new IllegalArgumentException(
                    requestUri + ": no place in the URI for the member '" + f + "'");
              }
            });
    return out.toString();
  }

  /** The inspectors on the class path, found once per JVM. */
  private static final class Inspectors {
    static final List<AwsRestJsonInspector> ALL =
        ServiceLoader.load(AwsRestJsonInspector.class, AwsRestJson.class.getClassLoader()).stream()
            .map(ServiceLoader.Provider::get)
            .toList();

    static void inspect(
        Service service, String operation, String method, String requestUri, JsonNode input) {
      for (var inspector : ALL) {
        inspector.inspect(service, operation, method, requestUri, input);
      }
    }
  }
}

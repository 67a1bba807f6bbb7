package io.gpufleet.testkit.aws.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.core.s3.S3RestInspector;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Holds every hand-made S3 request ({@link S3Rest}) to botocore's S3 model (rest-xml): the
 * service's metadata (protocol, service id, endpoint prefix, signing name), the operation's HTTP
 * method, its {@code requestUri} with the bucket and key put in as the REST protocols encode labels
 * (a greedy {@code {Key+}} keeps {@code /}, every other byte outside RFC 3986's unreserved set is
 * percent-encoded; a virtual-hosted request carries the bucket in the host instead), each header
 * and query parameter sent under the {@code locationName} of a member of the operation's input, a
 * body only where the input has a payload member, and then the model's own checks (required
 * members, bounds, enums, patterns). A request S3 would refuse or read otherwise is recorded in
 * {@link ContractViolations} and refused before it is sent.
 *
 * <p>Registered through {@code META-INF/services/io.gpufleet.core.s3.S3RestInspector} in the
 * testkit jar, so every test class path holding the testkit validates every such request.
 */
public final class S3RestModelInspector implements S3RestInspector {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Pattern LABEL = Pattern.compile("\\{([A-Za-z0-9_]+)(\\+?)}");

  @Override
  public void inspect(
      String operation, String bucket, String key, SdkHttpRequest request, byte[] body) {
    var violations =
        validate(BotocoreModels.shared().service("s3"), operation, bucket, key, request, body);
    ModelValidationInterceptor.VALIDATED.incrementAndGet();
    if (!violations.isEmpty()) {
      ContractViolations.record(violations);
      throw new IllegalArgumentException(
          "request refused by the S3 model (botocore): " + violations);
    }
  }

  /** Every reason S3 would refuse (or misread) this request; empty when it is valid. */
  public static List<ServiceModel.Violation> validate(
      ServiceModel s3,
      String operation,
      String bucket,
      String key,
      SdkHttpRequest request,
      byte[] body) {
    var out = new ArrayList<ServiceModel.Violation>();
    AwsJsonModelInspector.expectService(
        s3,
        operation,
        "rest-xml",
        S3Rest.SIGNING_NAME,
        S3Rest.ENDPOINT_PREFIX,
        S3Rest.SERVICE_ID,
        out);
    if (!s3.hasOperation(operation)) {
      out.add(violation(s3, operation, "", "is not an operation"));
      return out;
    }
    JsonNode http = s3.http(operation);
    AwsJsonModelInspector.expect(
        s3, operation, "http.method", http.path("method"), request.method().name(), out);
    String inputName = s3.inputShape(operation);
    JsonNode input = inputName == null ? NODES.objectNode() : s3.shape(inputName);
    ObjectNode tree = NODES.objectNode();
    path(s3, operation, input, http.path("requestUri").asText(), bucket, key, request, tree, out);
    for (var h : request.headers().entrySet()) {
      bind(s3, operation, input, inputName, "header", h.getKey(), h.getValue(), tree, out);
    }
    for (var q : request.rawQueryParameters().entrySet()) {
      bind(s3, operation, input, inputName, "querystring", q.getKey(), q.getValue(), tree, out);
    }
    String payload = input.path("payload").asText(null);
    if (body != null) {
      if (payload == null) {
        out.add(
            violation(
                s3, operation, "body", "is sent but " + inputName + " has no payload member"));
      } else {
        tree.set(payload, NODES.binaryNode(body));
      }
    }
    if (out.isEmpty()) {
      out.addAll(s3.validate(operation, tree));
    }
    return out;
  }

  /**
   * The request's path against the operation's {@code requestUri}: each label filled from the
   * members bound to the URI ({@code Bucket}, {@code Key}) and encoded as the REST protocols do;
   * for a virtual-hosted request (the host starts with the bucket) the leading {@code /{Bucket}} is
   * the host's instead.
   */
  private static void path(
      ServiceModel s3,
      String operation,
      JsonNode input,
      String requestUri,
      String bucket,
      String key,
      SdkHttpRequest request,
      ObjectNode tree,
      List<ServiceModel.Violation> out) {
    Map<String, String> values =
        Map.of("Bucket", bucket == null ? "" : bucket, "Key", key == null ? "" : key);
    String template =
        requestUri.contains("?") ? requestUri.substring(0, requestUri.indexOf('?')) : requestUri;
    boolean virtualHosted = bucket != null && request.host().startsWith(bucket + ".");
    if (virtualHosted) {
      if (!template.startsWith("/{Bucket}")) {
        out.add(
            violation(
                s3,
                operation,
                "host " + request.host(),
                "names the bucket, but " + requestUri + " does not start with it"));
        return;
      }
      template = template.substring("/{Bucket}".length());
      tree.put(member(input, "uri", "Bucket"), bucket);
    }
    Matcher m = LABEL.matcher(template);
    var expected = new StringBuilder();
    int at = 0;
    while (m.find()) {
      expected.append(template, at, m.start());
      String member = member(input, "uri", m.group(1));
      String value = member == null ? null : values.get(member);
      if (value == null) {
        out.add(
            violation(
                s3,
                operation,
                "requestUri " + requestUri,
                "label {" + m.group(1) + "} is not bound to Bucket or Key"));
        return;
      }
      tree.put(member, value);
      expected.append(encode(value, !m.group(2).isEmpty()));
      at = m.end();
    }
    expected.append(template.substring(at));
    String wanted = expected.isEmpty() ? "/" : expected.toString();
    if (!request.encodedPath().equals(wanted)) {
      out.add(
          violation(
              s3,
              operation,
              "path " + request.encodedPath(),
              "is not "
                  + requestUri
                  + " for bucket '"
                  + bucket
                  + "' and key '"
                  + key
                  + "'"
                  + (virtualHosted ? " (virtual-hosted)" : "")
                  + ": "
                  + wanted));
    }
  }

  /** A header or query parameter put in the tree under the member it is the locationName of. */
  private static void bind(
      ServiceModel s3,
      String operation,
      JsonNode input,
      String inputName,
      String location,
      String name,
      List<String> values,
      ObjectNode tree,
      List<ServiceModel.Violation> out) {
    String where = (location.equals("header") ? "header " : "query ") + name;
    String member = member(input, location, name);
    if (member == null) {
      out.add(
          violation(s3, operation, where, "is not the locationName of a member of " + inputName));
      return;
    }
    String value = values.isEmpty() ? "" : values.get(0);
    String type =
        s3.shape(input.path("members").path(member).path("shape").asText()).path("type").asText();
    try {
      tree.set(member, typed(type, value));
    } catch (NumberFormatException e) {
      out.add(violation(s3, operation, where, "'" + value + "' is not a " + type));
    }
  }

  /** A label's value as the REST protocols put it in a path; a greedy label keeps {@code /}. */
  static String encode(String value, boolean greedy) {
    String encoded =
        URLEncoder.encode(value, StandardCharsets.UTF_8)
            .replace("+", "%20")
            .replace("*", "%2A")
            .replace("%7E", "~");
    return greedy ? encoded.replace("%2F", "/") : encoded;
  }

  /** The member bound to {@code location} under {@code name} (headers compared without case). */
  private static String member(JsonNode input, String location, String name) {
    for (Iterator<Map.Entry<String, JsonNode>> it = input.path("members").fields();
        it.hasNext(); ) {
      var m = it.next();
      JsonNode ref = m.getValue();
      if (!location.equals(ref.path("location").asText())) {
        continue;
      }
      String wire = ref.path("locationName").asText(m.getKey());
      if (location.equals("header") ? wire.equalsIgnoreCase(name) : wire.equals(name)) {
        return m.getKey();
      }
    }
    return null;
  }

  private static JsonNode typed(String type, String value) {
    return switch (type) {
      case "integer", "long" -> NODES.numberNode(Long.parseLong(value));
      default -> NODES.textNode(value);
    };
  }

  private static ServiceModel.Violation violation(
      ServiceModel s3, String operation, String path, String problem) {
    return new ServiceModel.Violation(s3.service(), operation, path, problem);
  }
}

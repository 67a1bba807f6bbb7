package io.gpufleet.testkit.aws.contract;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.aws.AwsJsonInspector;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Holds every hand-made JSON-protocol request ({@link AwsJson}) to botocore's model of its service:
 * the service's metadata (JSON version, target prefix, signing name), the operation, and the body
 * as it goes on the wire — each member's JSON type as the protocol serialises its shape (integers
 * and longs as JSON integers, floats and doubles as numbers, booleans, strings, timestamps as epoch
 * seconds unless the shape says otherwise, blobs as base64 strings), then the model's own checks
 * (members that exist, required members, enums, bounds, patterns). A request the service would
 * refuse is recorded in {@link ContractViolations} and refused before it is sent.
 *
 * <p>Registered through {@code META-INF/services/io.gpufleet.core.aws.AwsJsonInspector} in the
 * testkit jar, so every test class path holding the testkit validates every such request.
 */
public final class AwsJsonModelInspector implements AwsJsonInspector {
  @Override
  public void inspect(AwsJson.Service service, String operation, JsonNode input) {
    ContractViolations.judge(
        service.serviceId() + " model",
        validate(BotocoreModels.shared(), service, operation, input));
  }

  /** The botocore directory of a service (its endpoint prefix, with the few that differ). */
  static String botocoreDir(AwsJson.Service service) {
    return switch (service.endpointPrefix()) {
      case "api.pricing" -> "pricing";
      case "servicequotas" -> "service-quotas";
      case "monitoring" -> "cloudwatch";
      default -> service.endpointPrefix();
    };
  }

  /** Every reason the service would refuse this request; empty when it is valid. */
  public static List<ServiceModel.Violation> validate(
      BotocoreModels models, AwsJson.Service service, String operation, JsonNode input) {
    ServiceModel model = models.service(botocoreDir(service));
    var out = new ArrayList<ServiceModel.Violation>();
    JsonNode meta = model.metadata();
    expect(
        model,
        operation,
        "metadata.jsonVersion",
        meta.path("jsonVersion"),
        service.jsonVersion(),
        out);
    expect(
        model,
        operation,
        "metadata.targetPrefix",
        meta.path("targetPrefix"),
        service.targetPrefix(),
        out);
    expectService(
        model,
        operation,
        "json",
        service.signingName(),
        service.endpointPrefix(),
        service.serviceId(),
        out);
    if (!model.hasOperation(operation)) {
      out.add(new ServiceModel.Violation(model.service(), operation, "", "is not an operation"));
      return out;
    }
    String shape = model.inputShape(operation);
    if (shape != null) {
      wireTypes(model, operation, shape, input, shape, out);
    }
    out.addAll(model.validate(operation, input));
    return out;
  }

  /**
   * The metadata every hand-made client names: a protocol among the model's, the signing name, the
   * endpoint prefix and the service id.
   */
  static void expectService(
      ServiceModel model,
      String operation,
      String protocol,
      String signingName,
      String endpointPrefix,
      String serviceId,
      List<ServiceModel.Violation> out) {
    JsonNode meta = model.metadata();
    boolean spoken = protocol.equals(meta.path("protocol").asText());
    for (JsonNode p : meta.path("protocols")) {
      spoken |= protocol.equals(p.asText());
    }
    if (!spoken) {
      out.add(
          new ServiceModel.Violation(
              model.service(),
              operation,
              "metadata.protocols",
              "has no " + protocol + " protocol"));
    }
    JsonNode signing =
        meta.has("signingName") ? meta.path("signingName") : meta.path("endpointPrefix");
    expect(model, operation, "metadata.signingName", signing, signingName, out);
    expect(
        model,
        operation,
        "metadata.endpointPrefix",
        meta.path("endpointPrefix"),
        endpointPrefix,
        out);
    expect(model, operation, "metadata.serviceId", meta.path("serviceId"), serviceId, out);
  }

  static void expect(
      ServiceModel model,
      String operation,
      String what,
      JsonNode actual,
      String expected,
      List<ServiceModel.Violation> out) {
    if (!actual.asText().equals(expected)) {
      out.add(
          new ServiceModel.Violation(
              model.service(),
              operation,
              what,
              "is '" + actual.asText() + "', the client sends '" + expected + "'"));
    }
  }

  /** Each value's JSON type against the type its shape is serialised as by the JSON protocols. */
  private static void wireTypes(
      ServiceModel model,
      String operation,
      String shapeName,
      JsonNode value,
      String path,
      List<ServiceModel.Violation> out) {
    JsonNode shape = model.shape(shapeName);
    if (shape.isMissingNode() || value == null || value.isNull()) {
      return;
    }
    String type = shape.path("type").asText();
    boolean ok =
        switch (type) {
          case "structure", "map" -> value.isObject();
          case "list" -> value.isArray();
          case "string", "blob" -> value.isTextual();
          case "boolean" -> value.isBoolean();
          case "integer", "long", "short", "byte", "biginteger" -> value.isIntegralNumber();
          case "float", "double", "bigdecimal" -> value.isNumber();
          case "timestamp" ->
              shape.has("timestampFormat")
                      && !"unixTimestamp".equals(shape.path("timestampFormat").asText())
                  ? value.isTextual()
                  : value.isNumber();
          default -> true;
        };
    if (!ok) {
      out.add(
          new ServiceModel.Violation(
              model.service(),
              operation,
              path,
              "is a JSON "
                  + value.getNodeType().toString().toLowerCase(java.util.Locale.ROOT)
                  + ", the model's "
                  + type
                  + " is not"));
      return;
    }
    switch (type) {
      case "structure" -> {
        JsonNode members = shape.path("members");
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
          var e = it.next();
          JsonNode member = members.get(e.getKey());
          if (member != null) {
            wireTypes(
                model,
                operation,
                member.path("shape").asText(),
                e.getValue(),
                path + "." + e.getKey(),
                out);
          }
        }
      }
      case "list" -> {
        String member = shape.path("member").path("shape").asText();
        for (int i = 0; i < value.size(); i++) {
          wireTypes(model, operation, member, value.get(i), path + "[" + i + "]", out);
        }
      }
      case "map" -> {
        String member = shape.path("value").path("shape").asText();
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
          var e = it.next();
          wireTypes(model, operation, member, e.getValue(), path + "{" + e.getKey() + "}", out);
        }
      }
      default -> {}
    }
  }
}

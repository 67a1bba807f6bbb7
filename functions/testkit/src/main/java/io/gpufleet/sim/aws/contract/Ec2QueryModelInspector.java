package io.gpufleet.sim.aws.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.aws.Ec2QueryInspector;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Holds every hand-made EC2 Query request ({@link Ec2Query}) to botocore's EC2 model, as {@link
 * ModelValidationInterceptor} does for SDK requests: the wire form is decoded through the model
 * with the EC2 protocol's serialisation rules (a member's {@code queryName}, else its {@code
 * locationName} with the first letter upper-cased, else its member name; list items as {@code
 * Name.1}, {@code Name.2}; structures as {@code Name.Member}; so {@code Filter.1.Name} and {@code
 * Filter.1.Value.1}), typed (integers, booleans, timestamps), and the resulting tree checked like
 * any other request (required members, enums, bounds, patterns). A request EC2 would refuse is
 * recorded in {@link ContractViolations} and refused before it is sent.
 *
 * <p>Registered through {@code META-INF/services/io.gpufleet.core.aws.Ec2QueryInspector} in the
 * testkit jar, so every test class path holding the testkit validates every such request.
 */
public final class Ec2QueryModelInspector implements Ec2QueryInspector {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Override
  public void inspect(Map<String, String> params) {
    var violations = validate(BotocoreModels.shared().service("ec2"), params);
    ModelValidationInterceptor.VALIDATED.incrementAndGet();
    if (!violations.isEmpty()) {
      ContractViolations.record(violations);
      throw new IllegalArgumentException(
          "request refused by the EC2 service model (botocore): " + violations);
    }
  }

  /** Every reason EC2 would refuse this form; empty when it is valid. */
  public static List<ServiceModel.Violation> validate(ServiceModel ec2, Map<String, String> form) {
    String operation = String.valueOf(form.get("Action"));
    var out = new ArrayList<ServiceModel.Violation>();
    if (!ec2.hasOperation(operation)) {
      out.add(new ServiceModel.Violation(ec2.service(), operation, "", "is not an operation"));
      return out;
    }
    if (!ec2.apiVersion().equals(form.get("Version"))) {
      out.add(violation(ec2, operation, "Version", "is not " + ec2.apiVersion()));
    }
    String input = ec2.inputShape(operation);
    ObjectNode tree = NODES.objectNode();
    for (var p : form.entrySet()) {
      if (p.getKey().equals("Action") || p.getKey().equals("Version")) {
        continue;
      }
      String problem = input == null ? "the operation takes no input" : place(ec2, input, tree, p);
      if (problem != null) {
        out.add(violation(ec2, operation, p.getKey() + "=" + p.getValue(), problem));
      }
    }
    gaps(ec2, operation, tree, "", out);
    if (out.isEmpty() && input != null) {
      out.addAll(ec2.validate(operation, tree));
    }
    return out;
  }

  /** Puts one form field into the tree; the problem, or null. */
  private static String place(
      ServiceModel ec2, String inputShape, ObjectNode tree, Map.Entry<String, String> field) {
    String[] parts = field.getKey().split("\\.", -1);
    JsonNode container = tree;
    String shapeName = inputShape;
    for (int i = 0; i < parts.length; i++) {
      JsonNode shape = ec2.shape(shapeName);
      String part = parts[i];
      boolean last = i == parts.length - 1;
      String childShape;
      String memberKey = null;
      int index = -1;
      switch (shape.path("type").asText()) {
        case "structure" -> {
          memberKey = memberByWireName(shape, part);
          if (memberKey == null) {
            return "no member of " + shapeName + " is sent as '" + part + "'";
          }
          childShape = shape.path("members").path(memberKey).path("shape").asText();
        }
        case "list" -> {
          if (!part.matches("[1-9][0-9]{0,4}")) {
            return "list index '" + part + "' is not a 1-based number";
          }
          index = Integer.parseInt(part) - 1;
          childShape = shape.path("member").path("shape").asText();
        }
        default -> {
          return "a " + shape.path("type").asText() + " has no part '" + part + "'";
        }
      }
      String childType = ec2.shape(childShape).path("type").asText();
      boolean composite = childType.equals("structure") || childType.equals("list");
      if (last) {
        if (composite) {
          return "a " + childType + " (" + childShape + ") given as a single value";
        }
        JsonNode scalar;
        try {
          scalar = scalar(childType, field.getValue());
        } catch (IllegalArgumentException | DateTimeParseException e) {
          return "'" + field.getValue() + "' is not a " + childType;
        }
        if (!set(container, memberKey, index, scalar)) {
          return "given twice";
        }
        return null;
      }
      if (!composite) {
        return "a " + childType + " has no parts";
      }
      JsonNode existing = get(container, memberKey, index);
      if (existing == null || existing.isNull()) {
        existing = childType.equals("list") ? NODES.arrayNode() : NODES.objectNode();
        set(container, memberKey, index, existing);
      }
      container = existing;
      shapeName = childShape;
    }
    return null;
  }

  /** EC2's wire name of each member: queryName, else locationName capitalised, else the name. */
  private static String memberByWireName(JsonNode structure, String wire) {
    for (Iterator<Map.Entry<String, JsonNode>> it = structure.path("members").fields();
        it.hasNext(); ) {
      var m = it.next();
      JsonNode ref = m.getValue();
      String name;
      if (ref.has("queryName")) {
        name = ref.path("queryName").asText();
      } else if (ref.has("locationName")) {
        String location = ref.path("locationName").asText();
        name = Character.toUpperCase(location.charAt(0)) + location.substring(1);
      } else {
        name = m.getKey();
      }
      if (name.equals(wire)) {
        return m.getKey();
      }
    }
    return null;
  }

  private static JsonNode scalar(String type, String value) {
    return switch (type) {
      case "integer", "long" -> NODES.numberNode(Long.parseLong(value));
      case "float", "double" -> NODES.numberNode(new BigDecimal(value));
      case "boolean" -> {
        if (!value.equals("true") && !value.equals("false")) {
          throw new IllegalArgumentException(value);
        }
        yield NODES.booleanNode(Boolean.parseBoolean(value));
      }
      case "timestamp" -> NODES.textNode(Instant.parse(value).toString());
      default -> NODES.textNode(value);
    };
  }

  private static JsonNode get(JsonNode container, String key, int index) {
    return key != null ? container.get(key) : container.get(index);
  }

  private static boolean set(JsonNode container, String key, int index, JsonNode value) {
    if (key != null) {
      return ((ObjectNode) container).putIfAbsent(key, value) == null;
    }
    ArrayNode list = (ArrayNode) container;
    while (list.size() <= index) {
      list.addNull();
    }
    if (!list.get(index).isNull()) {
      return false;
    }
    list.set(index, value);
    return true;
  }

  /** A list whose indexes skip a number (Name.1, Name.3) is not what EC2 reads. */
  private static void gaps(
      ServiceModel ec2,
      String operation,
      JsonNode node,
      String path,
      List<ServiceModel.Violation> out) {
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        if (node.get(i).isNull()) {
          out.add(violation(ec2, operation, path, "list index " + (i + 1) + " is missing"));
        } else {
          gaps(ec2, operation, node.get(i), path + "." + (i + 1), out);
        }
      }
    } else if (node.isObject()) {
      node.fields()
          .forEachRemaining(
              e ->
                  gaps(
                      ec2,
                      operation,
                      e.getValue(),
                      path.isEmpty() ? e.getKey() : path + "." + e.getKey(),
                      out));
    }
  }

  private static ServiceModel.Violation violation(
      ServiceModel ec2, String operation, String path, String problem) {
    return new ServiceModel.Violation(ec2.service(), operation, path, problem);
  }
}

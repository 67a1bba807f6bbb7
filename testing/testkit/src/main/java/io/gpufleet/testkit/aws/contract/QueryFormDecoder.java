package io.gpufleet.testkit.aws.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Decodes the form of a query-style request through the service's botocore model into a tree of
 * model member names, typed (integers, booleans, timestamps), and checks it like any other request
 * (required members, enums, bounds, patterns). Two dialects, as botocore serialises them:
 *
 * <ul>
 *   <li>{@link Dialect#EC2}: a member is sent as its {@code queryName}, else its {@code
 *       locationName} with the first letter upper-cased, else its name; list items as {@code
 *       Name.1}, {@code Name.2}; so {@code Filter.1.Name} and {@code Filter.1.Value.1};
 *   <li>{@link Dialect#QUERY}: a member is sent as its {@code locationName}, else its name; list
 *       items as {@code Name.member.1} (the list member's {@code locationName} in place of {@code
 *       member} when it has one), or {@code Name.1} for a flattened list. Maps ({@code
 *       Name.entry.N.key}) are not decoded: a form holding one is refused as undecodable.
 * </ul>
 *
 * Structures are {@code Name.Member} in both.
 */
final class QueryFormDecoder {
  enum Dialect {
    EC2,
    QUERY
  }

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final ServiceModel model;
  private final Dialect dialect;

  QueryFormDecoder(ServiceModel model, Dialect dialect) {
    this.model = model;
    this.dialect = dialect;
  }

  /** Every reason the service would refuse this form; empty when it is valid. */
  List<ServiceModel.Violation> validate(Map<String, String> form) {
    String operation = String.valueOf(form.get("Action"));
    var out = new ArrayList<ServiceModel.Violation>();
    if (!model.hasOperation(operation)) {
      out.add(new ServiceModel.Violation(model.service(), operation, "", "is not an operation"));
      return out;
    }
    if (!model.apiVersion().equals(form.get("Version"))) {
      out.add(violation(operation, "Version", "is not " + model.apiVersion()));
    }
    String input = model.inputShape(operation);
    ObjectNode tree = NODES.objectNode();
    for (var p : form.entrySet()) {
      if (p.getKey().equals("Action") || p.getKey().equals("Version")) {
        continue;
      }
      String problem = input == null ? "the operation takes no input" : place(input, tree, p);
      if (problem != null) {
        out.add(violation(operation, p.getKey() + "=" + p.getValue(), problem));
      }
    }
    gaps(operation, tree, "", out);
    if (out.isEmpty() && input != null) {
      out.addAll(model.validate(operation, tree));
    }
    return out;
  }

  /** Puts one form field into the tree; the problem, or null. */
  private String place(String inputShape, ObjectNode tree, Map.Entry<String, String> field) {
    String[] parts = field.getKey().split("\\.", -1);
    JsonNode container = tree;
    String shapeName = inputShape;
    for (int i = 0; i < parts.length; i++) {
      JsonNode shape = model.shape(shapeName);
      String part = parts[i];
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
          String wrapper = listWrapper(shape);
          if (wrapper != null) {
            if (!part.equals(wrapper) || i == parts.length - 1) {
              return "a list's items are sent as '" + wrapper + ".N', not '" + part + "'";
            }
            part = parts[++i];
          }
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
      String childType = model.shape(childShape).path("type").asText();
      if (childType.equals("map")) {
        return "a map (" + childShape + ") is not decoded by the contract check";
      }
      boolean composite = childType.equals("structure") || childType.equals("list");
      if (i == parts.length - 1) {
        if (composite) {
          return "a " + childType + " (" + childShape + ") given as a single value";
        }
        JsonNode scalar;
        try {
          scalar = scalar(childType, field.getValue());
        } catch (IllegalArgumentException | DateTimeParseException e) {
          return "'" + field.getValue() + "' is not a " + childType;
        }
        return set(container, memberKey, index, scalar) ? null : "given twice";
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

  /** The part between a list's name and its index: none in EC2's dialect or a flattened list. */
  private String listWrapper(JsonNode list) {
    if (dialect == Dialect.EC2 || list.path("flattened").asBoolean(false)) {
      return null;
    }
    return list.path("member").path("locationName").asText("member");
  }

  /** The member of {@code structure} sent under {@code wire}, or null. */
  private String memberByWireName(JsonNode structure, String wire) {
    for (Iterator<Map.Entry<String, JsonNode>> it = structure.path("members").fields();
        it.hasNext(); ) {
      var m = it.next();
      if (wireName(m.getKey(), m.getValue()).equals(wire)) {
        return m.getKey();
      }
    }
    return null;
  }

  private String wireName(String member, JsonNode ref) {
    if (dialect == Dialect.EC2 && ref.has("queryName")) {
      return ref.path("queryName").asText();
    }
    if (ref.has("locationName")) {
      String location = ref.path("locationName").asText();
      return dialect == Dialect.EC2
          ? Character.toUpperCase(location.charAt(0)) + location.substring(1)
          : location;
    }
    return member;
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

  /** A list whose indexes skip a number (Name.1, Name.3) is not what the service reads. */
  private void gaps(
      String operation, JsonNode node, String path, List<ServiceModel.Violation> out) {
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        if (node.get(i).isNull()) {
          out.add(violation(operation, path, "list index " + (i + 1) + " is missing"));
        } else {
          gaps(operation, node.get(i), path + "." + (i + 1), out);
        }
      }
    } else if (node.isObject()) {
      node.fields()
          .forEachRemaining(
              e ->
                  gaps(
                      operation,
                      e.getValue(),
                      path.isEmpty() ? e.getKey() : path + "." + e.getKey(),
                      out));
    }
  }

  private ServiceModel.Violation violation(String operation, String path, String problem) {
    return new ServiceModel.Violation(model.service(), operation, path, problem);
  }
}

package io.gpufleet.deploy.confinement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Every field of a kind, from the OpenAPI v3 document the API server serves for its group/version
 * (built-in kinds and CRDs alike, so a field a new release adds is walked without editing a test):
 * the leaves to attack, each a path of steps with the schema at each step, and values the schema
 * accepts.
 */
final class SchemaWalk {
  static final String ITEM = "[]";
  static final String NEW_ENTRY = "{+}";
  static final String OLD_ENTRY = "{=}";
  static final String NEW_KEY = "gpufleet.io/adversary";

  /** One step: a property name, {@link #ITEM}, {@link #NEW_ENTRY} or {@link #OLD_ENTRY}. */
  record Step(String name, JsonNode schema) {}

  record Leaf(List<Step> steps) {
    JsonNode schema() {
      return steps.getLast().schema();
    }

    /** Dotted, with [] for an element and {+}/{=} for a new/existing map entry. */
    String path() {
      var sb = new StringBuilder();
      for (Step s : steps) {
        if (s.name().equals(ITEM) || s.name().startsWith("{")) {
          sb.append(s.name());
        } else {
          sb.append(sb.isEmpty() ? "" : ".").append(s.name());
        }
      }
      return sb.toString();
    }

    List<String> names() {
      return steps.stream().map(Step::name).toList();
    }
  }

  private final JsonNode schemas;

  SchemaWalk(JsonNode openApiV3) {
    this.schemas = openApiV3.path("components").path("schemas");
  }

  /**
   * The schema of a kind by its OpenAPI name (io.k8s.api.core.v1.Node, sh.karpenter.v1.NodePool).
   */
  JsonNode kind(String name) {
    JsonNode s = schemas.get(name);
    if (s == null) {
      throw new IllegalStateException("no schema " + name + " in the OpenAPI document");
    }
    return s;
  }

  /** The property names of the object at {@code path} (dotted) below {@code kind}. */
  List<String> properties(String kind, String path) {
    JsonNode s = kind(kind);
    if (!path.isEmpty()) {
      for (String p : path.split("\\.")) {
        s = resolve(resolve(s).path("properties").path(p));
      }
    }
    var out = new ArrayList<String>();
    resolve(s).path("properties").fieldNames().forEachRemaining(out::add);
    return out;
  }

  /** Every leaf of {@code kind}, skipping top-level properties in {@code skip}. */
  List<Leaf> leaves(String kind, Set<String> skip) {
    var out = new ArrayList<Leaf>();
    walk(resolve(kind(kind)), new ArrayList<>(), new HashSet<>(), skip, out);
    return out;
  }

  private void walk(
      JsonNode schema, List<Step> at, Set<String> refs, Set<String> skip, List<Leaf> out) {
    if (at.size() > 14) {
      return;
    }
    JsonNode props = schema.path("properties");
    if (props.isObject() && props.size() > 0) {
      props
          .properties()
          .forEach(
              e -> {
                String dotted = dotted(at, e.getKey());
                if (skip.contains(dotted)) {
                  return;
                }
                String ref = ref(e.getValue());
                if (ref != null && refs.contains(ref)) {
                  return; // a recursive type: its fields were walked one level up
                }
                var ancestors = new HashSet<>(refs);
                if (ref != null) {
                  ancestors.add(ref);
                }
                JsonNode child = resolve(e.getValue());
                var next = new ArrayList<>(at);
                next.add(new Step(e.getKey(), child));
                descend(child, next, ancestors, skip, out);
              });
      return;
    }
    out.add(new Leaf(List.copyOf(at)));
  }

  private void descend(
      JsonNode child, List<Step> at, Set<String> refs, Set<String> skip, List<Leaf> out) {
    String type = child.path("type").asText("");
    if (type.equals("array")) {
      JsonNode items = resolve(child.path("items"));
      var next = new ArrayList<>(at);
      next.add(new Step(ITEM, items));
      if (items.path("properties").size() > 0) {
        walk(items, next, refs, skip, out);
      } else {
        out.add(new Leaf(List.copyOf(next)));
      }
    } else if (child.path("additionalProperties").isObject()) {
      JsonNode values = resolve(child.path("additionalProperties"));
      for (String entry : List.of(NEW_ENTRY, OLD_ENTRY)) {
        var next = new ArrayList<>(at);
        next.add(new Step(entry, values));
        out.add(new Leaf(List.copyOf(next)));
      }
    } else if (child.path("properties").size() > 0) {
      walk(child, at, refs, skip, out);
    } else {
      out.add(new Leaf(List.copyOf(at)));
    }
  }

  private static String dotted(List<Step> at, String name) {
    var parts = new ArrayList<String>();
    at.forEach(s -> parts.add(s.name()));
    parts.add(name);
    return String.join(".", parts);
  }

  private static String ref(JsonNode s) {
    if (s.has("$ref")) {
      return s.get("$ref").asText();
    }
    if (s.path("allOf").isArray() && s.path("allOf").size() == 1) {
      return ref(s.path("allOf").get(0));
    }
    return null;
  }

  JsonNode resolve(JsonNode s) {
    String ref = ref(s);
    if (ref == null) {
      return s;
    }
    return resolve(schemas.path(ref.substring(ref.lastIndexOf('/') + 1)));
  }

  // --- values ---

  private static final List<String> STRINGS =
      List.of(
          "gpufleet-adversary",
          "example.com/adversary",
          "10%",
          "1h",
          "30m",
          "2",
          "2Gi",
          "Exists",
          "In",
          "adversary",
          "a",
          "@daily",
          "0 9 * * *",
          "10.0.0.0/24",
          "aws:///us-east-1a/i-0aaaaaaaaaaaaaaaa",
          "v1",
          "Adversary",
          "2030-01-01T00:00:00Z");

  /** Values of {@code schema} other than {@code current}, most plausible first (at most 5). */
  List<JsonNode> candidates(JsonNode schema, JsonNode current) {
    var f = JsonNodeFactory.instance;
    var out = new ArrayList<JsonNode>();
    schema = resolve(schema);
    if (schema.path("enum").isArray() && schema.path("enum").size() > 0) {
      schema.path("enum").forEach(out::add);
    } else if (schema.path("x-kubernetes-int-or-string").asBoolean()
        || "int-or-string".equals(schema.path("format").asText())) {
      out.add(f.textNode("10%"));
      out.add(f.numberNode(2));
      out.add(f.textNode("2"));
    } else {
      switch (schema.path("type").asText("")) {
        case "boolean" -> {
          out.add(f.booleanNode(!(current != null && current.asBoolean())));
        }
        case "integer" -> {
          long min = schema.path("minimum").asLong(0);
          long max = schema.path("maximum").asLong(Long.MAX_VALUE);
          long now = current != null && current.isNumber() ? current.asLong() : 0;
          for (long v : new long[] {now + 1, min, min + 1, 3, Math.min(max, 100)}) {
            if (v >= min && v <= max) {
              out.add(f.numberNode(v));
            }
          }
        }
        case "number" -> out.add(f.numberNode(1.5));
        case "object" -> {
          ObjectNode o = f.objectNode();
          o.put("gpufleet-adversary", "x");
          out.add(o);
        }
        default -> {
          if ("date-time".equals(schema.path("format").asText())) {
            out.add(f.textNode("2030-01-01T00:00:00Z"));
          }
          Pattern pattern =
              schema.has("pattern") ? Pattern.compile(schema.path("pattern").asText()) : null;
          int maxLength = schema.path("maxLength").asInt(Integer.MAX_VALUE);
          int minLength = schema.path("minLength").asInt(0);
          for (String s : STRINGS) {
            if ((pattern == null || pattern.matcher(s).find())
                && s.length() <= maxLength
                && s.length() >= minLength) {
              out.add(f.textNode(s));
            }
          }
        }
      }
    }
    return out.stream().filter(v -> current == null || !v.equals(current)).limit(5).toList();
  }

  /** The smallest value the schema accepts: required properties filled, lists empty. */
  JsonNode minimal(JsonNode schema, int depth) {
    schema = resolve(schema);
    var f = JsonNodeFactory.instance;
    if (schema.path("properties").size() > 0 || "object".equals(schema.path("type").asText())) {
      ObjectNode o = f.objectNode();
      if (depth < 8) {
        for (JsonNode r : schema.path("required")) {
          JsonNode p = schema.path("properties").path(r.asText());
          o.set(r.asText(), minimal(p, depth + 1));
        }
      }
      return o;
    }
    if ("array".equals(schema.path("type").asText())) {
      ArrayNode a = f.arrayNode();
      if (schema.path("minItems").asInt(0) > 0) {
        a.add(minimal(schema.path("items"), depth + 1));
      }
      return a;
    }
    var c = candidates(schema, null);
    return c.isEmpty() ? f.textNode("gpufleet-adversary") : c.getFirst();
  }
}

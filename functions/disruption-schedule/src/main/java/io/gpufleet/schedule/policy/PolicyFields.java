package io.gpufleet.schedule.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Reading helpers every section of a policy document shares: scalar text, string lists, label maps,
 * rule names that must be unique, and the message for a window nobody defined. The schema has
 * checked the shapes; these only take values out.
 */
final class PolicyFields {
  private PolicyFields() {}

  /** A scalar field's trimmed text; null when absent or not a scalar (the schema says why). */
  static String text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    if (v == null || !v.isValueNode() || v.isNull() || v.asText().isBlank()) {
      return null;
    }
    return v.asText().trim();
  }

  static Set<String> stringSet(JsonNode node) {
    var out = new LinkedHashSet<String>();
    if (node != null && node.isArray()) {
      node.forEach(n -> out.add(n.asText()));
    }
    return out;
  }

  static Map<String, String> labels(JsonNode node) {
    var out = new LinkedHashMap<String, String>();
    if (node != null && node.isObject()) {
      node.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    }
    return out;
  }

  /** A rule's name; a name another rule of the same list already uses is a problem. */
  static String ruleName(JsonNode r, String path, Set<String> seen, Problems problems) {
    String name = text(r, "name");
    if (name != null && !seen.add(name)) {
      problems.add(path + ".name", "'" + name + "' is used by another rule");
    }
    return name;
  }

  static String unknownWindow(String name, Set<String> known) {
    return "unknown window '" + name + "' (defined: " + String.join(", ", known) + ")";
  }
}

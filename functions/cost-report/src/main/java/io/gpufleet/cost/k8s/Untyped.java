package io.gpufleet.cost.k8s;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reading Kubernetes objects as the JSON maps of a {@code GenericKubernetesResource}. */
final class Untyped {
  private Untyped() {}

  /** A JSON object as a map; empty for null (absent or JSON null) or another kind of value. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> object(Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  /** The objects of a JSON array; empty for null. */
  static List<Map<String, Object>> objects(Object value) {
    if (!(value instanceof List<?> list)) {
      return List.of();
    }
    var out = new ArrayList<Map<String, Object>>(list.size());
    list.forEach(e -> out.add(object(e)));
    return out;
  }

  /** A scalar as the text Jackson would bind it to a String field; null for null. */
  static String text(Object value) {
    return value == null ? null : value.toString();
  }
}

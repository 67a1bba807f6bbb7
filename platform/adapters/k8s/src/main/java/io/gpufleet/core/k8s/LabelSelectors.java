package io.gpufleet.core.k8s;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;

/** Evaluates a Kubernetes label selector against labels, as the API server does. */
public final class LabelSelectors {
  private LabelSelectors() {}

  /** A null selector selects nothing (as for PDBs); an empty selector selects everything. */
  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    Map<String, String> have = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (var e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(have.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if (!matches(r, have)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean matches(LabelSelectorRequirement r, Map<String, String> labels) {
    String value = labels.get(r.getKey());
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    return switch (r.getOperator()) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> labels.containsKey(r.getKey());
      case "DoesNotExist" -> !labels.containsKey(r.getKey());
      default -> false;
    };
  }
}

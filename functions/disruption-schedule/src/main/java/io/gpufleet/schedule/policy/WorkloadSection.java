package io.gpufleet.schedule.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import io.gpufleet.schedule.policy.Policy.WorkloadRule;
import io.gpufleet.schedule.policy.Policy.WorkloadSelector;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code workloads} section: per rule a selector (namespaces, labels or an annotation), the
 * kinds it scales and the replicas per window. A rule without a name or a usable selector is left
 * out (its problems say why).
 */
final class WorkloadSection {
  private final Problems problems;

  WorkloadSection(Problems problems) {
    this.problems = problems;
  }

  List<WorkloadRule> workloads(JsonNode node, Set<String> windowNames) {
    var out = new ArrayList<WorkloadRule>();
    var ruleNames = new LinkedHashSet<String>();
    for (int i = 0; node != null && node.isArray() && i < node.size(); i++) {
      JsonNode r = node.get(i);
      String path = "workloads[" + i + "]";
      String name = PolicyFields.ruleName(r, path, ruleNames, problems);
      WorkloadSelector selector = selector(r.get("selector"), path + ".selector");
      Set<WorkloadKind> kinds = EnumSet.allOf(WorkloadKind.class);
      if (r.path("kinds").isArray()) {
        kinds = EnumSet.noneOf(WorkloadKind.class);
        for (JsonNode k : r.get("kinds")) {
          WorkloadKind.byKind(k.asText()).ifPresent(kinds::add);
        }
      }
      var replicas = new LinkedHashMap<String, Integer>();
      JsonNode rs = r.get("replicas");
      for (var it = rs == null ? null : rs.fields(); it != null && it.hasNext(); ) {
        var e = it.next();
        if (!windowNames.contains(e.getKey())) {
          problems.add(
              path + ".replicas." + e.getKey(),
              PolicyFields.unknownWindow(e.getKey(), windowNames));
        } else {
          replicas.put(e.getKey(), e.getValue().asInt());
        }
      }
      if (name != null && selector != null) {
        out.add(new WorkloadRule(name, selector, Set.copyOf(kinds), Map.copyOf(replicas)));
      }
    }
    return out;
  }

  private WorkloadSelector selector(JsonNode node, String path) {
    if (node == null || !node.isObject()) {
      return null;
    }
    Set<String> namespaces = PolicyFields.stringSet(node.get("namespaces"));
    Map<String, String> labels = PolicyFields.labels(node.get("labels"));
    String annotation = PolicyFields.text(node, "annotation");
    if (annotation == null && namespaces.isEmpty() && labels.isEmpty()) {
      problems.add(
          path, "selects every workload in the cluster; name namespaces, labels or an annotation");
      return null;
    }
    return new WorkloadSelector(namespaces, labels, annotation);
  }
}

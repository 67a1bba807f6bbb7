package io.gpufleet.schedule.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.schedule.policy.Policy.Budget;
import io.gpufleet.schedule.policy.Policy.NodePoolRule;
import io.gpufleet.schedule.policy.Policy.NodePoolSelector;
import io.gpufleet.schedule.policy.Policy.NodePoolSetting;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code nodePools} section: per rule a selector that names NodePools or labels, and per window
 * the disruption budgets and consolidateAfter to set. A rule without a name or a usable selector is
 * left out (its problems say why).
 */
final class NodePoolSection {
  static final Pattern NODES = Pattern.compile("(\\d+)(%?)");

  private final Problems problems;

  NodePoolSection(Problems problems) {
    this.problems = problems;
  }

  List<NodePoolRule> nodePools(JsonNode node, Set<String> windowNames) {
    var out = new ArrayList<NodePoolRule>();
    var ruleNames = new LinkedHashSet<String>();
    for (int i = 0; node != null && node.isArray() && i < node.size(); i++) {
      JsonNode r = node.get(i);
      String path = "nodePools[" + i + "]";
      String name = PolicyFields.ruleName(r, path, ruleNames, problems);
      NodePoolSelector selector = selector(r.get("selector"), path + ".selector");
      var settings = new LinkedHashMap<String, NodePoolSetting>();
      JsonNode ws = r.get("windows");
      for (var it = ws == null ? null : ws.fields(); it != null && it.hasNext(); ) {
        var e = it.next();
        String wpath = path + ".windows." + e.getKey();
        if (!windowNames.contains(e.getKey())) {
          problems.add(wpath, PolicyFields.unknownWindow(e.getKey(), windowNames));
        } else {
          settings.put(e.getKey(), setting(e.getValue(), wpath));
        }
      }
      if (name != null && selector != null) {
        out.add(new NodePoolRule(name, selector, Map.copyOf(settings)));
      }
    }
    return out;
  }

  private NodePoolSelector selector(JsonNode node, String path) {
    if (node == null || !node.isObject()) {
      return null;
    }
    Set<String> names = PolicyFields.stringSet(node.get("names"));
    Map<String, String> labels = PolicyFields.labels(node.get("labels"));
    if (names.isEmpty() && labels.isEmpty()) {
      problems.add(path, "selects every NodePool; name them or give labels");
      return null;
    }
    return new NodePoolSelector(names, labels);
  }

  private NodePoolSetting setting(JsonNode node, String path) {
    var budgets = new ArrayList<Budget>();
    JsonNode bs = node.path("budgets");
    for (int i = 0; bs.isArray() && i < bs.size(); i++) {
      Budget b = budget(bs.get(i), path + ".budgets[" + i + "]");
      if (b != null) {
        budgets.add(b);
      }
    }
    return new NodePoolSetting(List.copyOf(budgets), PolicyFields.text(node, "consolidateAfter"));
  }

  private Budget budget(JsonNode node, String path) {
    String nodes = node.path("nodes").asText().trim();
    Matcher m = NODES.matcher(nodes);
    if (!m.matches()) {
      return null;
    }
    if (!m.group(2).isEmpty() && Long.parseLong(m.group(1)) > 100) {
      problems.add(path + ".nodes", "'" + nodes + "' is outside 0-100%");
      return null;
    }
    var reasons = new ArrayList<String>();
    node.path("reasons")
        .forEach(
            r -> {
              if (!reasons.contains(r.asText())) {
                reasons.add(r.asText());
              }
            });
    return new Budget(nodes, List.copyOf(reasons));
  }
}

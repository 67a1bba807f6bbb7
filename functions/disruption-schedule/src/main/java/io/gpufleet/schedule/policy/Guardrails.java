package io.gpufleet.schedule.policy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.schedule.policy.Policy.Budget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What no policy may do, whoever wrote it: the function's settings set these, never the policy, so
 * someone who can edit the policy cannot take the cluster down with it. On by default:
 *
 * <ul>
 *   <li>protected namespaces ({@link #BUILT_IN} plus {@code SCHEDULE_PROTECTED_NAMESPACES}): a rule
 *       naming one is refused, and a rule that names no namespace never touches them;
 *   <li>a replica ceiling ({@code SCHEDULE_MAX_REPLICAS}, default 100) for every rule and window;
 *   <li>at most {@code SCHEDULE_MAX_CHANGES} (default 200) objects changed per run: a run that
 *       would change more writes nothing and reports {@code GUARDRAIL};
 *   <li>a floor in the windows named by {@code SCHEDULE_FLOOR_WINDOWS} (default business-hours): a
 *       budget may let at most {@code SCHEDULE_FLOOR_MAX_DISRUPTION} (default 20%) of a pool's
 *       nodes be disrupted at once (absolute counts at most 1), and consolidateAfter is at least
 *       1m.
 * </ul>
 */
public record Guardrails(
    Set<String> protectedNamespaces,
    int maxReplicas,
    int maxChanges,
    Set<String> floorWindows,
    int floorMaxPercent) {

  /** Namespaces of the cluster's own machinery, Karpenter, the GPU operator and this stack. */
  public static final Set<String> BUILT_IN =
      Set.of(
          "kube-system",
          "kube-public",
          "kube-node-lease",
          "karpenter",
          "gpu-operator",
          "nvidia-gpu-operator",
          "gpufleet-system");

  static final Duration FLOOR_CONSOLIDATE_AFTER = Duration.ofMinutes(1);

  public Guardrails {
    protectedNamespaces = Set.copyOf(new TreeSet<>(protectedNamespaces));
    floorWindows = Set.copyOf(floorWindows);
  }

  public static Guardrails defaults() {
    return new Guardrails(BUILT_IN, 100, 200, Set.of("business-hours"), 20);
  }

  public static Guardrails from(Settings s) {
    var namespaces = new TreeSet<>(BUILT_IN);
    for (String n : s.string("SCHEDULE_PROTECTED_NAMESPACES", "").split(",")) {
      if (!n.isBlank()) {
        if (!n.trim().matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
          throw new ConfigException(
              "SCHEDULE_PROTECTED_NAMESPACES: '" + n.trim() + "' is not a namespace name");
        }
        namespaces.add(n.trim());
      }
    }
    var windows = new TreeSet<String>();
    for (String w : s.string("SCHEDULE_FLOOR_WINDOWS", "business-hours").split(",")) {
      if (!w.isBlank()) {
        windows.add(w.trim());
      }
    }
    return new Guardrails(
        namespaces,
        s.integer("SCHEDULE_MAX_REPLICAS", 100, 0, 100_000),
        s.integer("SCHEDULE_MAX_CHANGES", 200, 1, 100_000),
        windows,
        s.integer("SCHEDULE_FLOOR_MAX_DISRUPTION", 20, 0, 100));
  }

  public boolean protects(String namespace) {
    return namespace != null && protectedNamespaces.contains(namespace);
  }

  /** One line for the outcome: the guardrails this run was held to. */
  public String describe() {
    return "protected namespaces "
        + String.join(",", new TreeSet<>(protectedNamespaces))
        + "; at most "
        + maxReplicas
        + " replicas per rule and "
        + maxChanges
        + " objects changed per run; in "
        + String.join(",", new TreeSet<>(floorWindows))
        + " budgets at most "
        + floorMaxPercent
        + "% (or 1 node) and consolidateAfter at least 1m";
  }

  /** Every way {@code policy} breaks these guardrails, each with its path; empty when none. */
  public List<String> problems(Policy policy) {
    var out = new ArrayList<String>();
    for (int i = 0; i < policy.workloads().size(); i++) {
      var rule = policy.workloads().get(i);
      String at = "workloads[" + i + "] (" + rule.name() + ")";
      for (String ns : new TreeSet<>(rule.selector().namespaces())) {
        if (protects(ns)) {
          out.add(
              at
                  + ".selector.namespaces: '"
                  + ns
                  + "' is a protected namespace (protected: "
                  + String.join(", ", new TreeSet<>(protectedNamespaces))
                  + ")");
        }
      }
      rule.replicas()
          .forEach(
              (window, n) -> {
                if (n > maxReplicas) {
                  out.add(
                      at
                          + ".replicas."
                          + window
                          + ": "
                          + n
                          + " is above the ceiling of "
                          + maxReplicas
                          + " replicas (SCHEDULE_MAX_REPLICAS)");
                }
              });
    }
    for (int i = 0; i < policy.nodePools().size(); i++) {
      var rule = policy.nodePools().get(i);
      for (var e : rule.windows().entrySet()) {
        if (!floorWindows.contains(e.getKey())) {
          continue;
        }
        String at = "nodePools[" + i + "] (" + rule.name() + ").windows." + e.getKey();
        List<Budget> budgets = e.getValue().budgets();
        for (int b = 0; b < budgets.size(); b++) {
          String nodes = budgets.get(b).nodes();
          if (tooMany(nodes)) {
            out.add(
                at
                    + ".budgets["
                    + b
                    + "].nodes: '"
                    + nodes
                    + "' lets more than "
                    + floorMaxPercent
                    + "% of the pool be disrupted at once in "
                    + e.getKey()
                    + " (SCHEDULE_FLOOR_MAX_DISRUPTION; absolute counts at most 1)");
          }
        }
        String after = e.getValue().consolidateAfter();
        if (after != null
            && !after.equals("Never")
            && PolicyParser.parseGoDuration(after).compareTo(FLOOR_CONSOLIDATE_AFTER) < 0) {
          out.add(
              at + ".consolidateAfter: '" + after + "' is below the floor of 1m in " + e.getKey());
        }
      }
    }
    return out;
  }

  private boolean tooMany(String nodes) {
    if (nodes.endsWith("%")) {
      return Integer.parseInt(nodes.substring(0, nodes.length() - 1)) > floorMaxPercent;
    }
    return Long.parseLong(nodes) > 1;
  }
}

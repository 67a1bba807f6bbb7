package io.gpufleet.schedule;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.schedule.policy.Guardrails;
import io.gpufleet.schedule.policy.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The bindings of the schedule's write permissions (the ClusterRole {@value #WRITER_ROLE} of
 * deploy/rbac/disruption-schedule.yaml) that a policy needs: one RoleBinding per namespace its
 * workload rules name, so the schedule can scale nothing outside them. Never a ClusterRoleBinding:
 * a rule that names no namespace, or names a protected one ({@link Guardrails}), is refused with
 * the rule named. A policy without workload rules needs none. {@code gpufleet budgets rbac} prints
 * them.
 */
public final class ScheduleRbac {
  public static final String WRITER_ROLE = "gpufleet-disruption-schedule-writer";
  public static final String DEFAULT_GROUP = "gpufleet-schedule";

  private ScheduleRbac() {}

  /**
   * The namespaces the workload rules name, sorted.
   *
   * @throws IllegalArgumentException when a rule names none or a protected one
   */
  public static List<String> namespaces(Policy policy, Guardrails guardrails) {
    var out = new TreeSet<String>();
    var problems = new ArrayList<String>();
    for (int i = 0; i < policy.workloads().size(); i++) {
      var rule = policy.workloads().get(i);
      if (rule.selector().namespaces().isEmpty()) {
        problems.add(
            "workloads["
                + i
                + "] ("
                + rule.name()
                + ") names no namespaces: the schedule's write role is bound per namespace only"
                + " (never cluster-wide); name the namespaces it scales");
      }
      out.addAll(rule.selector().namespaces());
    }
    problems.addAll(guardrails.problems(policy));
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return List.copyOf(out);
  }

  public static List<String> namespaces(Policy policy) {
    return namespaces(policy, Guardrails.defaults());
  }

  /** The RoleBindings for {@code group}, one per namespace. */
  public static List<ObjectNode> bindings(Policy policy, String group) {
    var out = new ArrayList<ObjectNode>();
    namespaces(policy).forEach(ns -> out.add(binding("RoleBinding", ns, group)));
    return out;
  }

  /** The same as a multi-document YAML stream with a header saying where it comes from. */
  public static String yaml(Policy policy, String group, String source) {
    var docs = bindings(policy, group);
    var out = new StringBuilder();
    out.append("# Write permissions of the GPU Fleet Ops disruption schedule (group ")
        .append(group)
        .append(") for the policy ")
        .append(source)
        .append(".\n");
    if (docs.isEmpty()) {
      out.append("# The policy has no workload rules: no bindings needed.\n");
      return out.toString();
    }
    out.append("# Apply with: kubectl apply -f -   (needs deploy/rbac/disruption-schedule.yaml)\n");
    for (ObjectNode doc : docs) {
      try {
        String text = Yaml.MAPPER.writeValueAsString(doc);
        out.append(text.startsWith("---") ? text : "---\n" + text);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
    return out.toString();
  }

  private static ObjectNode binding(String kind, String namespace, String group) {
    ObjectNode b = Json.MAPPER.createObjectNode();
    b.put("apiVersion", "rbac.authorization.k8s.io/v1").put("kind", kind);
    ObjectNode meta = b.putObject("metadata").put("name", WRITER_ROLE);
    if (namespace != null) {
      meta.put("namespace", namespace);
    }
    meta.putObject("labels")
        .put("app.kubernetes.io/name", "gpufleet-disruption-schedule")
        .put("app.kubernetes.io/part-of", "gpufleet-ops");
    b.putObject("roleRef")
        .put("apiGroup", "rbac.authorization.k8s.io")
        .put("kind", "ClusterRole")
        .put("name", WRITER_ROLE);
    b.putArray("subjects")
        .addObject()
        .put("apiGroup", "rbac.authorization.k8s.io")
        .put("kind", "Group")
        .put("name", group);
    return b;
  }
}

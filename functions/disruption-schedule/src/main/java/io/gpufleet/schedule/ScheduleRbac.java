package io.gpufleet.schedule;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.schedule.policy.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The bindings of the schedule's write permissions (the ClusterRole {@value #WRITER_ROLE} of
 * deploy/rbac/disruption-schedule.yaml) that a policy needs: one RoleBinding per namespace its
 * workload rules name, so the schedule can scale nothing outside them; a single ClusterRoleBinding
 * only when a workload rule names no namespaces (it then selects workloads in every namespace). A
 * policy without workload rules needs none. {@code gpufleet budgets rbac} prints them.
 */
public final class ScheduleRbac {
  public static final String WRITER_ROLE = "gpufleet-disruption-schedule-writer";
  public static final String DEFAULT_GROUP = "gpufleet-schedule";

  private ScheduleRbac() {}

  /** The namespaces the workload rules name, sorted; empty when a rule names none (all). */
  public static List<String> namespaces(Policy policy) {
    var out = new TreeSet<String>();
    for (var rule : policy.workloads()) {
      if (rule.selector().namespaces().isEmpty()) {
        return List.of();
      }
      out.addAll(rule.selector().namespaces());
    }
    return List.copyOf(out);
  }

  /** The binding objects for {@code group}. */
  public static List<ObjectNode> bindings(Policy policy, String group) {
    var out = new ArrayList<ObjectNode>();
    if (policy.workloads().isEmpty()) {
      return out;
    }
    List<String> namespaces = namespaces(policy);
    if (namespaces.isEmpty()) {
      out.add(binding("ClusterRoleBinding", null, group));
    } else {
      namespaces.forEach(ns -> out.add(binding("RoleBinding", ns, group)));
    }
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
    if (docs.get(0).path("kind").asText().equals("ClusterRoleBinding")) {
      out.append(
          "# A workload rule names no namespaces, so the schedule may scale workloads in every\n"
              + "# namespace. Name the namespaces in every rule to bind per namespace instead.\n");
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

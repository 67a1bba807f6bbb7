package io.gpufleet.deploy.confinement;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.deploy.confinement.ConfinementSpec.Policy;
import io.gpufleet.deploy.confinement.YamlText.Folded;
import io.gpufleet.deploy.confinement.YamlText.Literal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ValidatingAdmissionPolicy (and its Deny binding) of one {@link Policy}: it compares
 * everything the identity does not own with {@code oldObject}: owner references, finalizers,
 * generateName, every label and annotation but the owned keys, and every property of the field tree
 * marked {@code compare} (whole subtrees, so a field added below them is covered too). Owned
 * properties are left out; the drain's rules add what owning means for them (its taint only with
 * its effect, uncordon only with removing its marker).
 */
final class PolicyRenderer {
  static final String OWN = "own";
  static final String COMPARE = "compare";

  private final String title;
  private final String identity;

  PolicyRenderer(String title, String identity) {
    this.title = title;
    this.identity = identity;
  }

  /** The policy and its binding, as two documents. */
  List<Map<String, Object>> render(Policy p) {
    var spec = new LinkedHashMap<String, Object>();
    spec.put("failurePolicy", "Fail");
    var rule = new LinkedHashMap<String, Object>();
    rule.put("apiGroups", List.of(p.apiGroup()));
    rule.put("apiVersions", List.of(p.version()));
    rule.put("operations", p.operations());
    rule.put("resources", p.resources());
    spec.put("matchConstraints", Map.of("resourceRules", List.of(rule)));
    spec.put(
        "matchConditions",
        List.of(
            entry(
                "name",
                "identity",
                "expression",
                "'" + p.group() + "' in request.userInfo.groups")));
    var variables = new ArrayList<Map<String, Object>>();
    var validations = new ArrayList<Map<String, Object>>();
    if (p.onlyNamed() != null) {
      validations.add(
          validation(
              "object.metadata.name == '" + p.onlyNamed() + "'",
              title + " may write only the " + p.kind() + " " + p.onlyNamed()));
    }
    if (p.fields() != null) {
      metadata(p, variables, validations);
      var owned = new ArrayList<String>();
      owned(p.fields(), "", owned);
      fields(p, p.fields(), List.of(), owned, validations);
    }
    if (!variables.isEmpty()) {
      spec.put("variables", variables);
    }
    spec.put("validations", validations);

    var policy = new LinkedHashMap<String, Object>();
    policy.put("apiVersion", "admissionregistration.k8s.io/v1");
    policy.put("kind", "ValidatingAdmissionPolicy");
    policy.put("metadata", metadata(p.name()));
    policy.put("spec", spec);
    var binding = new LinkedHashMap<String, Object>();
    binding.put("apiVersion", "admissionregistration.k8s.io/v1");
    binding.put("kind", "ValidatingAdmissionPolicyBinding");
    binding.put("metadata", metadata(p.name()));
    binding.put("spec", entry("policyName", p.name(), "validationActions", List.of("Deny")));
    return List.of(policy, binding);
  }

  private Map<String, Object> metadata(String name) {
    var labels = new LinkedHashMap<String, Object>();
    labels.put("app.kubernetes.io/name", "gpufleet-" + identity);
    labels.put("app.kubernetes.io/part-of", "gpufleet-ops");
    return entry("name", name, "labels", labels);
  }

  private void metadata(
      Policy p, List<Map<String, Object>> variables, List<Map<String, Object>> validations) {
    for (String part : List.of("labels", "annotations")) {
      List<String> owned = part.equals("labels") ? p.labels() : p.annotations();
      String cap = Character.toUpperCase(part.charAt(0)) + part.substring(1);
      variables.add(
          variable(
              "new" + cap,
              "has(object.metadata." + part + ") ? object.metadata." + part + " : {}"));
      variables.add(
          variable(
              "old" + cap,
              "has(oldObject.metadata." + part + ") ? oldObject.metadata." + part + " : {}"));
      if (owned.isEmpty()) {
        validations.add(
            validation(
                "variables.new" + cap + " == variables.old" + cap,
                title + " may not change the " + part + " of " + p.noun()));
        continue;
      }
      String list = "variables.owned" + cap;
      variables.add(variable("owned" + cap, quotedList(owned)));
      String n = "variables.new" + cap;
      String o = "variables.old" + cap;
      validations.add(
          validation(
              n
                  + ".all(k, k in "
                  + list
                  + " ||\n  (k in "
                  + o
                  + " && "
                  + o
                  + "[k] == "
                  + n
                  + "[k])) &&\n"
                  + o
                  + ".all(k, k in "
                  + list
                  + " || k in "
                  + n
                  + ")",
              title
                  + " may change only the "
                  + part
                  + " "
                  + String.join(", ", owned)
                  + " of "
                  + p.noun()));
    }
    var eq = new ArrayList<String>();
    for (String f : List.of("ownerReferences", "finalizers")) {
      eq.add(
          "(has(object.metadata."
              + f
              + ") ? object.metadata."
              + f
              + " : []) ==\n  (has(oldObject.metadata."
              + f
              + ") ? oldObject.metadata."
              + f
              + " : [])");
    }
    eq.add(
        "(has(object.metadata.generateName) ? object.metadata.generateName : '') ==\n"
            + "  (has(oldObject.metadata.generateName) ? oldObject.metadata.generateName : '')");
    validations.add(
        validation(
            String.join(" &&\n", eq),
            title
                + " may not change the owner references, finalizers or generateName of "
                + p.noun()));
  }

  private static void owned(JsonNode level, String prefix, List<String> out) {
    level
        .properties()
        .forEach(
            e -> {
              String path = prefix + e.getKey();
              JsonNode v = e.getValue();
              if (v.isTextual() && OWN.equals(v.asText()) || isRule(v)) {
                out.add(path);
              } else if (v.isObject()) {
                owned(v, path + ".", out);
              }
            });
  }

  private void fields(
      Policy p,
      JsonNode level,
      List<String> path,
      List<String> owned,
      List<Map<String, Object>> validations) {
    for (var e : level.properties()) {
      var here = new ArrayList<>(path);
      here.add(e.getKey());
      String dotted = String.join(".", here);
      JsonNode v = e.getValue();
      if (v.isTextual() && COMPARE.equals(v.asText())) {
        String ownedText = owned.isEmpty() ? "" : String.join(", ", owned);
        validations.add(
            validation(
                equal(here),
                owned.isEmpty()
                    ? title + " may not change " + dotted + " of " + p.noun()
                    : title
                        + " may change only "
                        + ownedText
                        + " of "
                        + p.noun()
                        + ", not "
                        + dotted));
      } else if (v.isTextual() && OWN.equals(v.asText())) {
        continue;
      } else if (isRule(v)) {
        rule(p, here, v, validations);
      } else if (v.isObject()) {
        fields(p, v, here, owned, validations);
      } else {
        throw new IllegalArgumentException(
            p.name() + ": " + dotted + " must be own, compare, a rule or a map, not " + v);
      }
    }
  }

  private static boolean isRule(JsonNode v) {
    return v.isObject() && v.path("rule").isTextual();
  }

  private void rule(Policy p, List<String> path, JsonNode v, List<Map<String, Object>> out) {
    String o = "object." + String.join(".", path);
    String old = "oldObject." + String.join(".", path);
    String present = presence("object", path);
    String oldPresent = presence("oldObject", path);
    switch (v.path("rule").asText()) {
      case "cordon" -> {
        String marker = v.path("marker").asText();
        out.add(
            validation(
                "!("
                    + oldPresent
                    + " && "
                    + old
                    + ") ||\n("
                    + present
                    + " && "
                    + o
                    + ") ||\n('"
                    + marker
                    + "' in variables.oldAnnotations && !('"
                    + marker
                    + "' in variables.newAnnotations))",
                title
                    + " may uncordon "
                    + p.noun()
                    + " only together with removing its marker annotation "
                    + marker
                    + " (a cordon of someone else stays)"));
      }
      case "taint" -> {
        String key = v.path("key").asText();
        String effect = v.path("effect").asText();
        String mine = "t.key == '" + key + "'";
        out.add(
            validation(
                "("
                    + present
                    + " ? "
                    + o
                    + ".filter(t, !("
                    + mine
                    + ")) : []) ==\n  ("
                    + oldPresent
                    + " ? "
                    + old
                    + ".filter(t, !("
                    + mine
                    + ")) : [])",
                title + " may add or remove only its own taint " + key + " of " + p.noun()));
        out.add(
            validation(
                "!("
                    + present
                    + ") || "
                    + o
                    + ".all(t, !("
                    + mine
                    + ") || t.effect == '"
                    + effect
                    + "' ||\n  ("
                    + oldPresent
                    + " && "
                    + old
                    + ".exists(x, x == t)))",
                title
                    + " may put its taint "
                    + key
                    + " on "
                    + p.noun()
                    + " only with the effect "
                    + effect));
      }
      default -> throw new IllegalArgumentException(p.name() + ": unknown rule " + v.path("rule"));
    }
  }

  /** {@code path} is present in both or neither, and equal where present. */
  static String equal(List<String> path) {
    String a = presence("object", path);
    String b = presence("oldObject", path);
    String joined = String.join(".", path);
    return "("
        + a
        + ") == ("
        + b
        + ") &&\n  (!("
        + a
        + ") || object."
        + joined
        + " == oldObject."
        + joined
        + ")";
  }

  private static String presence(String root, List<String> path) {
    var parts = new ArrayList<String>();
    for (int i = 1; i <= path.size(); i++) {
      parts.add("has(" + root + "." + String.join(".", path.subList(0, i)) + ")");
    }
    return String.join(" && ", parts);
  }

  private static String quotedList(List<String> values) {
    var out = new ArrayList<String>();
    values.forEach(v -> out.add("'" + v + "'"));
    return "[" + String.join(", ", out) + "]";
  }

  private static Map<String, Object> variable(String name, String expression) {
    return entry("name", name, "expression", expression);
  }

  private static Map<String, Object> validation(String expression, String message) {
    var m = new LinkedHashMap<String, Object>();
    m.put("expression", expression.contains("\n") ? new Literal(expression) : expression);
    m.put("reason", "Invalid");
    m.put("message", new Folded(message));
    return m;
  }

  private static Map<String, Object> entry(String k1, Object v1, String k2, Object v2) {
    var m = new LinkedHashMap<String, Object>();
    m.put(k1, v1);
    m.put(k2, v2);
    return m;
  }
}

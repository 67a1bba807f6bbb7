package io.gpufleet.deploy.confinement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.gpufleet.core.json.Yaml;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One identity's confinement spec ({@code deploy/confinement/<function>.yaml}): its template
 * parameters, its RBAC objects and, per resource it writes, the fields it owns. Loading replaces
 * every {@code ${Name}} by the parameter's value (its default unless overridden) after checking the
 * value the way the template's parameter does.
 */
public record ConfinementSpec(
    String identity,
    String title,
    Map<String, Parameter> parameters,
    Map<String, String> values,
    List<RbacFile> rbac,
    Admission admission) {

  /** A template parameter the spec uses: its kind (how a value is checked) and default. */
  public record Parameter(String kind, String defaultValue) {}

  public record RbacFile(String file, String comment, List<RbacObject> objects) {}

  /** A ClusterRole/Role (with rules) or a ClusterRoleBinding/RoleBinding (role + group). */
  public record RbacObject(
      String kind, String name, String namespace, List<Rule> rules, String role, String group) {}

  public record Rule(
      List<String> apiGroups,
      List<String> resources,
      List<String> resourceNames,
      List<String> verbs) {}

  public record Admission(String file, String comment, List<Policy> policies) {}

  /**
   * One ValidatingAdmissionPolicy: the resource it matches, the identity's group, the label and
   * annotation keys the identity owns and the field tree (every property of each level named: own,
   * compare, a rule, or a map to descend into).
   */
  public record Policy(
      String name,
      String group,
      String apiGroup,
      String version,
      List<String> resources,
      List<String> operations,
      String kind,
      String noun,
      List<String> labels,
      List<String> annotations,
      String onlyNamed,
      JsonNode fields) {}

  public static final String GROUP = "group";
  public static final String TAINT_KEY = "taint-key";
  public static final String TAINT_EFFECT = "taint-effect";

  /** The template's AllowedPattern of every *KubernetesGroup parameter. */
  public static final String GROUP_PATTERN = "^[A-Za-z0-9][A-Za-z0-9:._-]*$";

  /** The template's AllowedPattern of DrainTaintKey. */
  public static final String TAINT_KEY_PATTERN =
      "^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$";

  /** The taint effects Kubernetes knows (and the template's AllowedValues of DrainTaintEffect). */
  public static final List<String> TAINT_EFFECTS =
      List.of("NoSchedule", "NoExecute", "PreferNoSchedule");

  private static final Pattern REF = Pattern.compile("\\$\\{([A-Za-z0-9]+)}");
  private static final Pattern KEY =
      Pattern.compile(
          "^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");

  /** Reads the spec's parameters (name to kind and default) without rendering it. */
  public static Map<String, Parameter> parametersOf(Path file) {
    JsonNode tree = read(file);
    var out = new LinkedHashMap<String, Parameter>();
    tree.path("parameters")
        .properties()
        .forEach(
            e ->
                out.put(
                    e.getKey(),
                    new Parameter(
                        e.getValue().path("kind").asText(),
                        e.getValue().path("default").asText())));
    return out;
  }

  /**
   * Loads {@code file} with {@code overrides} (parameter name to value) applied over the defaults;
   * an override of a parameter this spec does not declare is ignored (it belongs to another spec).
   */
  public static ConfinementSpec load(Path file, Map<String, String> overrides) {
    JsonNode tree = read(file);
    var parameters = parametersOf(file);
    var values = new LinkedHashMap<String, String>();
    parameters.forEach(
        (name, p) -> {
          String v = overrides.getOrDefault(name, p.defaultValue());
          check(file, name, p.kind(), v);
          values.put(name, v);
        });
    ObjectNode body = ((ObjectNode) tree).deepCopy();
    body.remove("parameters");
    JsonNode substituted = substitute(file, body, values);
    var rbac = new ArrayList<RbacFile>();
    for (JsonNode f : substituted.path("rbac")) {
      var objects = new ArrayList<RbacObject>();
      for (JsonNode o : f.path("objects")) {
        var rules = new ArrayList<Rule>();
        for (JsonNode r : o.path("rules")) {
          rules.add(
              new Rule(
                  strings(r.path("apiGroups")),
                  strings(r.path("resources")),
                  strings(r.path("resourceNames")),
                  strings(r.path("verbs"))));
        }
        objects.add(
            new RbacObject(
                text(o, "kind"),
                text(o, "name"),
                text(o, "namespace"),
                rules,
                text(o, "role"),
                text(o, "group")));
      }
      rbac.add(new RbacFile(text(f, "file"), text(f, "comment"), objects));
    }
    Admission admission = null;
    JsonNode a = substituted.path("admission");
    if (!a.isMissingNode()) {
      var policies = new ArrayList<Policy>();
      for (JsonNode p : a.path("policies")) {
        var labels = strings(p.path("labels"));
        var annotations = strings(p.path("annotations"));
        for (String k : concat(labels, annotations)) {
          if (!KEY.matcher(k).matches()) {
            throw new IllegalArgumentException(
                file + ": '" + k + "' is not a label/annotation key");
          }
        }
        var ops = strings(p.path("operations"));
        policies.add(
            new Policy(
                text(p, "name"),
                text(p, "group"),
                p.path("apiGroup").asText(""),
                text(p, "version"),
                strings(p.path("resources")),
                ops.isEmpty() ? List.of("UPDATE") : ops,
                text(p, "kind"),
                text(p, "noun"),
                labels,
                annotations,
                text(p, "onlyNamed"),
                p.path("fields").isMissingNode() ? null : p.path("fields")));
      }
      admission = new Admission(text(a, "file"), text(a, "comment"), policies);
    }
    return new ConfinementSpec(
        text(substituted, "identity"),
        text(substituted, "title"),
        parameters,
        values,
        rbac,
        admission);
  }

  /** Refuses a parameter value the template's parameter would refuse, naming it. */
  static void check(Path file, String name, String kind, String value) {
    String problem =
        switch (kind) {
          case GROUP ->
              !value.matches(GROUP_PATTERN)
                  ? "is not a Kubernetes group name (" + GROUP_PATTERN + ")"
                  : value.startsWith("system:")
                      ? "starts with 'system:' (EKS access entries refuse such groups)"
                      : null;
          case TAINT_KEY ->
              !value.matches(TAINT_KEY_PATTERN) || value.length() > 316
                  ? "is not a taint key (" + TAINT_KEY_PATTERN + ")"
                  : null;
          case TAINT_EFFECT ->
              TAINT_EFFECTS.contains(value) ? null : "is not a taint effect " + TAINT_EFFECTS;
          default -> throw new IllegalArgumentException(file + ": unknown parameter kind " + kind);
        };
    if (problem != null) {
      throw new IllegalArgumentException(name + "='" + value + "' " + problem);
    }
  }

  private static JsonNode substitute(Path file, JsonNode node, Map<String, String> values) {
    if (node.isTextual()) {
      Matcher m = REF.matcher(node.asText());
      var sb = new StringBuilder();
      while (m.find()) {
        String v = values.get(m.group(1));
        if (v == null) {
          throw new IllegalArgumentException(
              file + ": ${" + m.group(1) + "} is not a parameter of this spec " + values.keySet());
        }
        m.appendReplacement(sb, Matcher.quoteReplacement(v));
      }
      m.appendTail(sb);
      return TextNode.valueOf(sb.toString());
    }
    if (node.isObject()) {
      var out = Yaml.MAPPER.createObjectNode();
      node.properties().forEach(e -> out.set(e.getKey(), substitute(file, e.getValue(), values)));
      return out;
    }
    if (node.isArray()) {
      var out = Yaml.MAPPER.createArrayNode();
      node.forEach(n -> out.add(substitute(file, n, values)));
      return out;
    }
    return node;
  }

  private static JsonNode read(Path file) {
    try {
      return Yaml.MAPPER.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read confinement spec " + file, e);
    }
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static List<String> strings(JsonNode n) {
    var out = new ArrayList<String>();
    n.forEach(v -> out.add(v.asText()));
    return List.copyOf(out);
  }

  private static List<String> concat(List<String> a, List<String> b) {
    var out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}

package io.gpufleet.testkit.real;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.sim.real.FunctionIdentity;
import io.gpufleet.sim.real.Manifests;
import io.gpufleet.sim.real.RealCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Least privilege shown, not claimed: what a function's identities did on the real API server (from
 * its audit log) against what {@code deploy/rbac/<function>*.yaml} grants them.
 *
 * <p>Every granted (apiGroup, resource, verb) of every binding naming one of the function's groups
 * must have been exercised by at least one request the API server authorised (any answer but 401
 * and 403; a 404 or an admission refusal still proves the permission was needed to get that far),
 * and no request of the identities may have been refused with 403. A ClusterRole of the files that
 * no binding in the files references is granted through RoleBindings generated per namespace (e.g.
 * from the schedule's policy); its rules count in whatever namespace they were used.
 */
public final class LeastPrivilege {
  /** One granted permission. {@code scope}: "cluster", a namespace, or "generated RoleBindings". */
  public record Grant(
      String binding,
      String role,
      String scope,
      String apiGroup,
      String resource,
      String verb,
      List<String> resourceNames) {
    String describe() {
      return verb
          + " "
          + (apiGroup.isEmpty() ? "" : apiGroup + "/")
          + resource
          + (resourceNames.isEmpty() ? "" : " " + resourceNames)
          + " ["
          + scope
          + "] via "
          + role
          + " ("
          + binding
          + ")";
    }

    boolean covers(RealCluster.AuditEvent e) {
      if (!apiGroup.equals(e.apiGroup())
          || !resource.equals(e.rbacResource())
          || !verb.equals(e.verb())) {
        return false;
      }
      if (!resourceNames.isEmpty() && !resourceNames.contains(e.name())) {
        return false;
      }
      return switch (scope) {
        case CLUSTER, GENERATED -> true;
        default -> scope.equals(e.namespace());
      };
    }
  }

  static final String CLUSTER = "cluster";
  static final String GENERATED = "RoleBindings generated per namespace";

  /** What the audit log and the manifests say about one function. */
  public record Report(
      String function,
      List<Grant> grants,
      Map<Grant, Integer> uses,
      List<RealCluster.AuditEvent> requests,
      List<RealCluster.AuditEvent> denied,
      List<RealCluster.AuditEvent> ungranted) {
    public List<Grant> unused() {
      return grants.stream().filter(g -> uses.getOrDefault(g, 0) == 0).toList();
    }

    /** Why the build fails; empty when every grant was used and nothing was denied. */
    public List<String> problems() {
      var out = new ArrayList<String>();
      if (requests.isEmpty()) {
        out.add("no request of " + function + "'s identities reached the API server");
      }
      unused().forEach(g -> out.add("granted but never used: " + g.describe()));
      denied.forEach(e -> out.add("denied (403): " + line(e)));
      return out;
    }

    /** The report as text: requests by identity, verb × resource × namespace, then the grants. */
    public String text() {
      var out = new StringBuilder();
      out.append("Least-privilege report: ").append(function).append('\n');
      out.append("Requests of its identities (verb resource[/subresource] namespace: answers)\n");
      var byIdentity = new TreeMap<String, TreeMap<String, TreeMap<Integer, Integer>>>();
      for (var e : requests) {
        byIdentity
            .computeIfAbsent(String.join("+", groupsOf(e)), k -> new TreeMap<>())
            .computeIfAbsent(
                e.verb()
                    + " "
                    + (e.apiGroup().isEmpty() ? "" : e.apiGroup() + "/")
                    + (e.resource().isEmpty() ? e.uri() : e.rbacResource())
                    + " "
                    + namespaceLabel(e.namespace()),
                k -> new TreeMap<>())
            .merge(e.code(), 1, Integer::sum);
      }
      byIdentity.forEach(
          (identity, lines) -> {
            out.append("  groups ").append(identity).append('\n');
            lines.forEach(
                (k, codes) -> {
                  out.append("    ").append(k).append(": ");
                  var parts = new ArrayList<String>();
                  codes.forEach((code, n) -> parts.add(n + "×" + code));
                  out.append(String.join(", ", parts)).append('\n');
                });
          });
      out.append("Grants (uses)\n");
      for (Grant g : grants) {
        out.append("  ")
            .append(uses.getOrDefault(g, 0) == 0 ? "UNUSED " : "")
            .append(g.describe())
            .append(": ")
            .append(uses.getOrDefault(g, 0))
            .append('\n');
      }
      if (!denied.isEmpty()) {
        out.append("Denied (403)\n");
        denied.forEach(e -> out.append("  ").append(line(e)).append('\n'));
      }
      if (!ungranted.isEmpty()) {
        out.append("Authorised by no grant of the manifests (system roles)\n");
        ungranted.forEach(e -> out.append("  ").append(line(e)).append('\n'));
      }
      var problems = problems();
      out.append(problems.isEmpty() ? "OK: every grant used, nothing denied\n" : "FAILED\n");
      problems.forEach(p -> out.append("  ").append(p).append('\n'));
      return out.toString();
    }

    /** Writes {@code <dir>/<function>.txt} and returns the file. */
    public Path write(Path dir) {
      try {
        Files.createDirectories(dir);
        Path file = dir.resolve(function + ".txt");
        Files.writeString(file, text(), StandardCharsets.UTF_8);
        return file;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the least-privilege report to " + dir, e);
      }
    }
  }

  private LeastPrivilege() {}

  /**
   * The report of {@code function} from the cluster's audit log so far and the repo's manifests.
   */
  public static Report report(RealCluster cluster, String function) {
    return report(function, cluster.auditEvents(), Manifests.repoRoot());
  }

  /** The report of {@code function} from {@code events} and the manifests under {@code root}. */
  public static Report report(String function, List<RealCluster.AuditEvent> events, Path root) {
    var identities =
        java.util.Arrays.stream(FunctionIdentity.values())
            .filter(i -> i.function().equals(function))
            .toList();
    if (identities.isEmpty()) {
      throw new IllegalArgumentException("no identity of function " + function);
    }
    var groups = new HashSet<String>();
    identities.forEach(i -> groups.addAll(i.groups()));
    var grants = grants(Manifests.rbacOf(root, function), groups);
    var requests =
        events.stream().filter(e -> identities.stream().anyMatch(i -> isIdentity(e, i))).toList();
    var uses = new LinkedHashMap<Grant, Integer>();
    var denied = new ArrayList<RealCluster.AuditEvent>();
    var ungranted = new ArrayList<RealCluster.AuditEvent>();
    for (var e : requests) {
      if (e.code() == 401 || e.code() == 403) {
        denied.add(e);
        continue;
      }
      boolean covered = false;
      for (Grant g : grants) {
        if (g.covers(e)) {
          uses.merge(g, 1, Integer::sum);
          covered = true;
        }
      }
      if (!covered) {
        ungranted.add(e);
      }
    }
    return new Report(function, grants, uses, requests, denied, ungranted);
  }

  static boolean isIdentity(RealCluster.AuditEvent e, FunctionIdentity identity) {
    return new HashSet<>(groupsOf(e)).equals(new HashSet<>(identity.groups()));
  }

  static List<String> groupsOf(RealCluster.AuditEvent e) {
    return e.groups().stream().filter(g -> !g.equals("system:authenticated")).sorted().toList();
  }

  static String namespaceLabel(String ns) {
    if (ns.isEmpty()) {
      return "(cluster)";
    }
    if (ns.equals("default") || ns.startsWith("kube-")) {
      return ns;
    }
    return "(test namespace)";
  }

  static String line(RealCluster.AuditEvent e) {
    return e.verb()
        + " "
        + (e.apiGroup().isEmpty() ? "" : e.apiGroup() + "/")
        + (e.resource().isEmpty() ? e.uri() : e.rbacResource())
        + " "
        + (e.namespace().isEmpty() ? "" : e.namespace() + "/")
        + e.name()
        + " -> "
        + e.code()
        + (e.message().isEmpty() ? "" : " " + e.message());
  }

  /** The grants of the files' bindings that name one of {@code groups}, rule by rule. */
  static List<Grant> grants(List<Path> files, Set<String> groups) {
    var roles = new LinkedHashMap<String, JsonNode>();
    var bindings = new ArrayList<JsonNode>();
    for (Path file : files) {
      for (JsonNode doc : documents(file)) {
        String kind = doc.path("kind").asText();
        String name = doc.path("metadata").path("name").asText();
        switch (kind) {
          case "ClusterRole" -> roles.put("ClusterRole/" + name, doc);
          case "Role" ->
              roles.put(
                  "Role/" + doc.path("metadata").path("namespace").asText() + "/" + name, doc);
          case "ClusterRoleBinding", "RoleBinding" -> bindings.add(doc);
          default -> {}
        }
      }
    }
    var out = new ArrayList<Grant>();
    var referenced = new TreeSet<String>();
    for (JsonNode b : bindings) {
      boolean ours = false;
      for (JsonNode s : b.path("subjects")) {
        ours |= "Group".equals(s.path("kind").asText()) && groups.contains(s.path("name").asText());
      }
      String ns = b.path("metadata").path("namespace").asText("");
      String refKind = b.path("roleRef").path("kind").asText();
      String refName = b.path("roleRef").path("name").asText();
      String key = refKind.equals("Role") ? "Role/" + ns + "/" + refName : "ClusterRole/" + refName;
      referenced.add(key);
      if (!ours) {
        continue;
      }
      JsonNode role = roles.get(key);
      if (role == null) {
        throw new IllegalStateException(
            b.path("kind").asText()
                + " "
                + b.path("metadata").path("name").asText()
                + " references "
                + key
                + ", which no file of the function defines");
      }
      String scope = b.path("kind").asText().equals("ClusterRoleBinding") ? CLUSTER : ns;
      out.addAll(
          expand(
              role,
              b.path("kind").asText() + "/" + b.path("metadata").path("name").asText(),
              key,
              scope));
    }
    roles.forEach(
        (key, role) -> {
          if (!referenced.contains(key) && key.startsWith("ClusterRole/")) {
            out.addAll(expand(role, "per-namespace RoleBindings", key, GENERATED));
          }
        });
    return out;
  }

  private static List<Grant> expand(JsonNode role, String binding, String key, String scope) {
    var out = new ArrayList<Grant>();
    for (JsonNode rule : role.path("rules")) {
      var names = new ArrayList<String>();
      rule.path("resourceNames").forEach(n -> names.add(n.asText()));
      for (JsonNode group : rule.path("apiGroups")) {
        for (JsonNode resource : rule.path("resources")) {
          for (JsonNode verb : rule.path("verbs")) {
            out.add(
                new Grant(
                    binding,
                    key,
                    scope,
                    group.asText(),
                    resource.asText(),
                    verb.asText(),
                    List.copyOf(names)));
          }
        }
      }
    }
    return out;
  }

  private static List<JsonNode> documents(Path file) {
    try (var parser = Yaml.MAPPER.getFactory().createParser(file.toFile())) {
      var out = new ArrayList<JsonNode>();
      var it = Yaml.MAPPER.readValues(parser, JsonNode.class);
      while (it.hasNext()) {
        JsonNode doc = it.next();
        if (doc != null && !doc.isNull() && !doc.isEmpty()) {
          out.add(doc);
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  static String json(Object o) {
    return Json.write(o);
  }
}

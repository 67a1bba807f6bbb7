package io.gpufleet.testkit.real;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.sim.real.RealCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The least-privilege check itself, over a hand-made audit log and manifests. */
class LeastPrivilegeTest {
  static final String MANIFEST =
      """
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata: { name: reader }
      rules:
        - apiGroups: [""]
          resources: [nodes]
          verbs: [list, get]
        - apiGroups: [""]
          resources: [configmaps]
          resourceNames: [mine]
          verbs: [list]
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRoleBinding
      metadata: { name: reader }
      roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader }
      subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: Group, name: gpufleet-cost }]
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: Role
      metadata: { name: events, namespace: default }
      rules: [{ apiGroups: [""], resources: [events], verbs: [create] }]
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: RoleBinding
      metadata: { name: events, namespace: default }
      roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: events }
      subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: Group, name: gpufleet-cost }]
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata: { name: writer }
      rules: [{ apiGroups: [apps], resources: [deployments/scale], verbs: [update] }]
      """;

  static RealCluster.AuditEvent event(
      List<String> groups,
      String verb,
      String group,
      String resource,
      String sub,
      String ns,
      String name,
      int code) {
    return new RealCluster.AuditEvent(
        "user", groups, verb, group, resource, sub, ns, name, code, "", "/x", Instant.EPOCH);
  }

  static final List<String> COST = List.of("gpufleet-cost", "system:authenticated");

  static Path root(Path dir) throws Exception {
    Files.createDirectories(dir.resolve("deploy/rbac"));
    Files.writeString(dir.resolve("deploy/rbac/cost-report.yaml"), MANIFEST);
    return dir;
  }

  @Test
  void shouldPassWhenEveryGrantWasUsedInItsScopeAndNothingDenied(@TempDir Path dir)
      throws Exception {
    var events =
        List.of(
            event(COST, "list", "", "nodes", "", "", "", 200),
            event(COST, "get", "", "nodes", "", "", "n1", 404),
            event(COST, "list", "", "configmaps", "", "", "mine", 200),
            event(COST, "create", "", "events", "", "default", "", 201),
            event(COST, "update", "apps", "deployments", "scale", "team-a", "web", 200),
            // another identity's requests do not count
            event(List.of("gpufleet-drain"), "delete", "", "pods", "", "x", "p", 403));

    var report = LeastPrivilege.report("cost-report", events, root(dir));

    assertThat(report.problems()).as(report.text()).isEmpty();
    assertThat(report.requests()).hasSize(5);
    assertThat(report.text()).contains("OK: every grant used");
  }

  @Test
  void shouldFailOnAnUnusedGrantAGrantUsedOutsideItsScopeAndADenial(@TempDir Path dir)
      throws Exception {
    var events =
        List.of(
            event(COST, "list", "", "nodes", "", "", "", 200),
            // another ConfigMap name: not the granted one
            event(COST, "list", "", "configmaps", "", "", "theirs", 200),
            // events in another namespace than the Role's
            event(COST, "create", "", "events", "", "kube-system", "", 201),
            event(COST, "update", "apps", "deployments", "scale", "team-a", "web", 200),
            event(COST, "delete", "", "pods", "", "team-a", "p", 403));

    var report = LeastPrivilege.report("cost-report", events, root(dir));

    assertThat(report.problems())
        .anySatisfy(p -> assertThat(p).startsWith("granted but never used: get nodes"))
        .anySatisfy(p -> assertThat(p).startsWith("granted but never used: list configmaps [mine]"))
        .anySatisfy(
            p -> assertThat(p).startsWith("granted but never used: create events [default]"))
        .anySatisfy(p -> assertThat(p).startsWith("denied (403): delete pods team-a/p"))
        .hasSize(4);
    assertThat(report.ungranted()).hasSize(2);
  }
}

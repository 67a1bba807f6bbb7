package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.schedule.policy.PolicyParser;
import org.junit.jupiter.api.Test;

class ScheduleRbacTest {
  static final String BASE =
      """
      timeZone: UTC
      defaultWindow: off-hours
      windows:
        business-hours: { days: mon-fri, hours: "08:00-19:00" }
      """;

  @Test
  void shouldBindTheWriterRoleOnlyInTheNamespacesTheWorkloadRulesName() {
    var policy =
        PolicyParser.parse(
            BASE
                + """
                workloads:
                  - name: a
                    selector: { namespaces: [ml, jobs], labels: { x: y } }
                    replicas: { off-hours: 0 }
                  - name: b
                    selector: { namespaces: [ml] }
                    replicas: { off-hours: 1 }
                """,
            "p");

    assertThat(ScheduleRbac.namespaces(policy)).containsExactly("jobs", "ml");
    assertThat(ScheduleRbac.bindings(policy, "g"))
        .extracting(b -> b.path("kind").asText() + " " + b.at("/metadata/namespace").asText())
        .containsExactly("RoleBinding jobs", "RoleBinding ml");
  }

  @Test
  void shouldRefuseARuleThatNamesNoNamespaceInsteadOfBindingClusterWide() {
    var policy =
        PolicyParser.parse(
            BASE
                + """
                workloads:
                  - name: a
                    selector: { namespaces: [ml] }
                    replicas: { off-hours: 0 }
                  - name: everywhere
                    selector: { labels: { x: y } }
                    replicas: { off-hours: 0 }
                """,
            "p");

    assertThatThrownBy(() -> ScheduleRbac.bindings(policy, "g"))
        .hasMessageContaining("workloads[1] (everywhere) names no namespaces")
        .hasMessageContaining("never cluster-wide");
  }

  @Test
  void shouldRefuseToBindAProtectedNamespace() {
    var policy =
        PolicyParser.parse(
            BASE
                + """
                workloads:
                  - name: system
                    selector: { namespaces: [ml, kube-system] }
                    replicas: { off-hours: 0 }
                """,
            "p");

    assertThatThrownBy(() -> ScheduleRbac.yaml(policy, "g", "p"))
        .hasMessageContaining(
            "workloads[0] (system).selector.namespaces: 'kube-system' is a protected namespace");
  }

  @Test
  void shouldNeedNoBindingForAPolicyWithoutWorkloadRules() {
    var policy =
        PolicyParser.parse(
            BASE
                + """
                nodePools:
                  - name: gpu
                    selector: { names: [gpu] }
                    windows:
                      off-hours: { budgets: [{ nodes: "0" }] }
                """,
            "p");

    assertThat(ScheduleRbac.bindings(policy, "g")).isEmpty();
    assertThat(ScheduleRbac.yaml(policy, "g", "p")).contains("no bindings needed");
  }
}

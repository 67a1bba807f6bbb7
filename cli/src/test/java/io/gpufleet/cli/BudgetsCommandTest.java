package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.sim.DemoWorkloads;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimObjects;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `gpufleet budgets render|apply` with the example policy, apply against the simulated cluster. */
class BudgetsCommandTest extends SimClusterCli {
  static final Path POLICY = root().resolve("deploy/policy/disruption-schedule.example.yaml");

  static Path root() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("deploy/policy"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no deploy/policy above " + Path.of("").toAbsolutePath());
  }

  @Override
  void populate(SimCluster cluster) {
    DemoWorkloads.populate(cluster);
  }

  @Test
  void shouldRenderNativeBudgetsAndTheDstDates() {
    int code =
        run("budgets", "render", "--policy", POLICY.toString(), "--at", "2026-01-15T12:00:00Z");

    assertThat(code).isZero();
    assertThat(out())
        // the example's business hours start 08:00 CET with a 10m lead time: 06:50 UTC, 11h10m
        .contains("schedule: \"50 6 * * mon,tue,wed,thu,fri\"")
        .contains("duration: 11h10m")
        .contains("from 07:50 (lead time 10m)")
        .contains(
            "# WARNING: the policy's holidays 2026-04-03 (fri), 2026-04-06 (mon), 2026-05-01"
                + " (fri), 2026-12-24 (thu), 2026-12-25 (fri) fall on window 'business-hours'")
        .contains("nodes: \"50%\"")
        .contains("2026-03-29")
        .contains("2026-10-25");
  }

  @Test
  void shouldPrintOneRoleBindingOfTheWriterRolePerNamespaceThePolicyNames() throws Exception {
    int code = run("budgets", "rbac", "--policy", POLICY.toString(), "--group", "sched-team");

    assertThat(code).as(err()).isZero();
    var docs = new java.util.ArrayList<com.fasterxml.jackson.databind.JsonNode>();
    var mapper = io.gpufleet.core.json.Yaml.MAPPER;
    try (var parser = mapper.getFactory().createParser(out())) {
      var it = mapper.readValues(parser, com.fasterxml.jackson.databind.JsonNode.class);
      while (it.hasNext()) {
        docs.add(it.next());
      }
    }
    // the example policy scales workloads in "ml" and "jobs": a RoleBinding in each, no more
    assertThat(docs)
        .extracting(
            d -> d.path("kind").asText(),
            d -> d.at("/metadata/namespace").asText(),
            d -> d.at("/roleRef/kind").asText() + "/" + d.at("/roleRef/name").asText(),
            d -> d.at("/subjects/0/kind").asText() + "/" + d.at("/subjects/0/name").asText())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "RoleBinding",
                "jobs",
                "ClusterRole/gpufleet-disruption-schedule-writer",
                "Group/sched-team"),
            org.assertj.core.groups.Tuple.tuple(
                "RoleBinding",
                "ml",
                "ClusterRole/gpufleet-disruption-schedule-writer",
                "Group/sched-team"));
    // and the role it binds is the one deploy/rbac ships
    assertThat(Files.readString(root().resolve("deploy/rbac/disruption-schedule.yaml")))
        .contains("name: gpufleet-disruption-schedule-writer");
  }

  @Test
  void shouldApplyAtTheGivenTimeAndReportEveryChange() {
    // 22:30 on Monday 2026-03-30 in Berlin (CEST): off-hours
    int code =
        run(
            "budgets",
            "apply",
            "--policy",
            POLICY.toString(),
            "--at",
            "2026-03-30T22:30:00+02:00",
            "--kubeconfig");

    assertThat(code).as(err()).isZero();
    assertThat(out())
        .contains("RECONCILED")
        .contains("window off-hours")
        .contains("chat-inference");
    SimObjects o = cluster.objects();
    assertThat(o.require("Deployment", "ml", "chat-inference").at("/spec/replicas").asInt())
        .isZero();
  }

  @Test
  void shouldShowTheDiffAndWriteNothingOnADryRun() {
    int code =
        run(
            "budgets",
            "apply",
            "--policy",
            POLICY.toString(),
            "--at",
            "2026-03-30T23:00",
            "--dry-run",
            "--kubeconfig");

    assertThat(code).isZero();
    assertThat(out())
        .contains("DRY_RUN")
        .contains("would write 8")
        .contains("replicas 4")
        .contains("DRY_RUN");
    assertThat(cluster.objects().writes()).isEmpty();
  }

  @Test
  void shouldExitTwoWithThePolicyErrorBeforeConnecting(@TempDir Path dir) throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, Files.readString(POLICY).replace("Europe/Berlin", "Europe/Nowhere"));

    int code = run("budgets", "apply", "--policy", bad.toString(), "--kubeconfig");

    assertThat(code).isEqualTo(2);
    assertThat(err()).contains("unknown time zone 'Europe/Nowhere'");
    assertThat(cluster.requests()).isEmpty();
  }

  @Test
  void shouldRejectAnUnreadableAt() {
    int code = run("budgets", "render", "--policy", POLICY.toString(), "--at", "tomorrow");

    assertThat(code).isEqualTo(2);
    assertThat(err()).contains("--at 'tomorrow' is not ISO-8601");
  }
}

package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.model.Change.Action;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.policy.Policy;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import io.gpufleet.schedule.policy.PolicyParser;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure planner over hand-made object states (no cluster). */
class PlannerTest {
  static final String POLICY_TEXT =
      """
          timeZone: UTC
          defaultWindow: off-hours
          windows: { business-hours: { days: mon-fri, hours: "08:00-18:00" } }
          workloads:
            - name: web
              selector: { namespaces: [web] }
              replicas: { off-hours: 1 }
          """;
  static final Policy POLICY = PolicyParser.parse(POLICY_TEXT, "test");

  static final Instant NIGHT = Instant.parse("2026-03-02T22:00:00Z");
  static final Instant DAY = Instant.parse("2026-03-03T10:00:00Z");

  static TargetState deployment(
      String ns, String name, int replicas, Map<String, String> annotations) {
    ObjectNode fields = Json.MAPPER.createObjectNode().put("replicas", replicas);
    return new TargetState(
        new ObjectRef("apps/v1", "Deployment", ns, name, "uid-" + name, "1"),
        WorkloadKind.DEPLOYMENT,
        Map.of(),
        annotations,
        Instant.parse("2025-01-01T00:00:00Z"),
        fields,
        null,
        null,
        null,
        null);
  }

  static Map<String, String> managed(int original, int applied) {
    var a = new HashMap<String, String>();
    a.put(Planner.ORIGINAL, "{\"replicas\":" + original + "}");
    a.put(Planner.APPLIED, "{\"window\":\"off-hours\",\"fields\":{\"replicas\":" + applied + "}}");
    return a;
  }

  static final Policy WITH_LEAD =
      PolicyParser.parse(
          POLICY_TEXT.replace(
              "hours: \"08:00-18:00\" }", "hours: \"08:00-18:00\", leadTime: 10m }"),
          "test");

  @org.junit.jupiter.params.ParameterizedTest(name = "{0} -> {1}")
  @org.junit.jupiter.params.provider.CsvSource({
    "2026-03-03T07:49:59Z, ",
    "2026-03-03T07:50:00Z, RESTORE",
    "2026-03-03T07:59:00Z, RESTORE",
    "2026-03-03T17:59:00Z, RESTORE",
    "2026-03-03T18:00:00Z, ",
  })
  void shouldRestoreReplicasTheLeadTimeBeforeBusinessHours(String at, Action expected) {
    // scaled to 1 for the night, originally 4
    var plan =
        Planner.plan(
            WITH_LEAD,
            Instant.parse(at),
            List.of(),
            List.of(deployment("web", "a", 1, managed(4, 1))));

    if (expected == null) {
      assertThat(plan.writes()).isEmpty();
    } else {
      assertThat(plan.window().name()).isEqualTo("business-hours");
      assertThat(plan.writes())
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.change().action()).isEqualTo(expected);
                assertThat(s.write().fields().toString()).isEqualTo("{\"replicas\":4}");
              });
    }
  }

  @Test
  void shouldPlanNothingWhenTheObjectAlreadyHasTheWantedValue() {
    var plan = Planner.plan(POLICY, NIGHT, List.of(), List.of(deployment("web", "a", 1, Map.of())));
    assertThat(plan.steps()).isEmpty();
  }

  @Test
  void shouldRememberTheOriginalWhenApplying() {
    var plan = Planner.plan(POLICY, NIGHT, List.of(), List.of(deployment("web", "a", 5, Map.of())));

    var step = plan.writes().get(0);
    assertThat(step.change().action()).isEqualTo(Action.APPLY);
    assertThat(step.write().fields().toString()).isEqualTo("{\"replicas\":1}");
    assertThat(step.write().annotations())
        .containsEntry(Planner.ORIGINAL, "{\"replicas\":5}")
        .containsEntry(Planner.APPLIED, "{\"window\":\"off-hours\",\"fields\":{\"replicas\":1}}");
  }

  @Test
  void shouldRestoreAnObjectNoRuleSelectsAnyMore() {
    // managed by an earlier policy, now in a namespace no rule names
    var plan =
        Planner.plan(
            POLICY, NIGHT, List.of(), List.of(deployment("batch", "old", 1, managed(4, 1))));

    var step = plan.writes().get(0);
    assertThat(step.change().action()).isEqualTo(Action.RESTORE);
    assertThat(step.write().fields().toString()).isEqualTo("{\"replicas\":4}");
    assertThat(step.write().annotations()).isEmpty();
  }

  @Test
  void shouldPlanNothingOnAManagedObjectStillAtTheWindowsValue() {
    var plan =
        Planner.plan(POLICY, NIGHT, List.of(), List.of(deployment("web", "a", 1, managed(4, 1))));
    assertThat(plan.steps()).isEmpty();
  }

  @Test
  void shouldRefuseToGuessWhenBookkeepingIsUnreadable() {
    var broken = Map.of(Planner.APPLIED, "{not json", Planner.ORIGINAL, "{\"replicas\":4}");
    var plan = Planner.plan(POLICY, DAY, List.of(), List.of(deployment("web", "a", 1, broken)));

    assertThat(plan.writes()).isEmpty();
    assertThat(plan.steps().get(0).change().action()).isEqualTo(Action.SKIP);
    assertThat(plan.steps().get(0).change().note()).contains("unreadable");
  }

  @Test
  void shouldLeaveAnHpaThatKedaOwnsToTheScaledObject() {
    var hpa =
        new TargetState(
            new ObjectRef(
                "autoscaling/v2", "HorizontalPodAutoscaler", "web", "keda-hpa-x", "u", "1"),
            WorkloadKind.HPA,
            Map.of(),
            Map.of(),
            Instant.parse("2025-01-01T00:00:00Z"),
            Json.MAPPER.createObjectNode().put("minReplicas", 2),
            5,
            "Deployment",
            "x",
            "ScaledObject x");

    var plan = Planner.plan(POLICY, NIGHT, List.of(), List.of(hpa));

    assertThat(plan.writes()).isEmpty();
    assertThat(plan.steps().get(0).change().note()).contains("managed by ScaledObject x");
  }

  @Test
  void shouldJudgeTheWindowAtTheGivenInstant() {
    assertThat(Planner.plan(POLICY, DAY, List.of(), List.of()).window().name())
        .isEqualTo("business-hours");
    assertThat(Planner.plan(POLICY, NIGHT, List.of(), List.of()).window().name())
        .isEqualTo("off-hours");
  }
}

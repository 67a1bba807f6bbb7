package io.gpufleet.schedule.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.Planner;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.model.Write;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicaStateTest {
  static TargetState deployment(int replicas, long generation, Map<String, String> annotations) {
    return new TargetState(
        new ObjectRef("apps/v1", "Deployment", "ml", "chat", "u", "7", generation),
        WorkloadKind.DEPLOYMENT,
        Map.of(),
        annotations,
        null,
        Json.MAPPER.createObjectNode().put("replicas", replicas),
        null,
        null,
        null,
        null);
  }

  static String entry(long generation) {
    var ref = new ObjectRef("apps/v1", "Deployment", "ml", "chat", "u", "7", generation);
    return ReplicaState.entry(
        new Write(
            ref,
            Json.MAPPER.createObjectNode().put("replicas", 0),
            Map.of(
                Planner.ORIGINAL,
                "{\"replicas\":4}",
                Planner.APPLIED,
                "{\"window\":\"off-hours\",\"fields\":{\"replicas\":0}}")));
  }

  @Test
  void shouldPresentAnEntryAsTheBookkeepingAnnotationsOnceTheScaleLanded() {
    // the scale bumped the generation from 3 to 4
    var merged =
        ReplicaState.merge(
            deployment(0, 4, Map.of()), Map.of("ml", Map.of("Deployment.chat", entry(3))));

    assertThat(merged.annotation(Planner.ORIGINAL)).isEqualTo("{\"replicas\":4}");
    assertThat(merged.annotation(Planner.APPLIED))
        .isEqualTo("{\"window\":\"off-hours\",\"fields\":{\"replicas\":0}}");
  }

  @Test
  void shouldKeepAnEntryWhoseObjectSomebodyElseChangedSinceSoThePlannerHoldsOrReleasesIt() {
    var merged =
        ReplicaState.merge(
            deployment(2, 5, Map.of()), Map.of("ml", Map.of("Deployment.chat", entry(3))));

    assertThat(merged.annotation(Planner.APPLIED)).isNotNull();
  }

  @Test
  void shouldIgnoreAnEntryWhoseScaleNeverLanded() {
    // state written at generation 3, then the scale failed: still generation 3, still 4 replicas
    var merged =
        ReplicaState.merge(
            deployment(4, 3, Map.of()), Map.of("ml", Map.of("Deployment.chat", entry(3))));

    assertThat(merged.annotation(Planner.ORIGINAL)).isNull();
    assertThat(merged.annotation(Planner.APPLIED)).isNull();
  }

  @Test
  void shouldIgnoreBookkeepingAnnotationsOnTheWorkloadItself() {
    var legacy = Map.of(Planner.APPLIED, "{}", Planner.ORIGINAL, "{}", "team", "ml");

    var merged = ReplicaState.merge(deployment(4, 3, legacy), Map.of());

    assertThat(merged.annotations()).containsOnlyKeys("team");
  }

  @Test
  void shouldLeaveAnUnreadableEntryForThePlannerToReport() {
    var merged =
        ReplicaState.merge(
            deployment(0, 4, Map.of()), Map.of("ml", Map.of("Deployment.chat", "{oops")));
    var plan =
        Planner.plan(
            io.gpufleet.schedule.policy.PolicyParser.parse(
                """
                timeZone: UTC
                defaultWindow: off-hours
                workloads:
                  - name: w
                    selector: { namespaces: [ml] }
                    replicas: { off-hours: 0 }
                """,
                "p"),
            java.time.Instant.parse("2027-01-01T00:00:00Z"),
            java.util.List.of(),
            java.util.List.of(merged));

    assertThat(plan.steps())
        .singleElement()
        .satisfies(s -> assertThat(s.change().note()).contains("unreadable"));
  }
}

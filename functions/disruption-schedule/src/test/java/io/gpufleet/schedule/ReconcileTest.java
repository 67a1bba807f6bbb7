package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.k8s.ReplicaState;
import io.gpufleet.schedule.k8s.ScheduleClusterAdapter;
import io.gpufleet.schedule.model.Change;
import io.gpufleet.schedule.model.Change.Action;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.model.ScheduleOutcome.Status;
import io.gpufleet.schedule.model.Write;
import io.gpufleet.schedule.wiring.ScheduleWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimObjects;
import io.gpufleet.sim.SimTime;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Adapter tier: the real service, planner and fabric8 gateway against the simulated API server
 * (which models server-side apply); the objects are asserted afterwards, and so are the requests.
 */
class ReconcileTest {
  static final String POLICY =
      """
      timeZone: Europe/Berlin
      defaultWindow: off-hours
      windows:
        business-hours: { days: mon-fri, hours: "08:00-19:00" }
      gracePeriod: 1h
      nodePools:
        - name: gpu
          selector: { labels: { team: ml } }
          windows:
            business-hours: { budgets: [{ nodes: "10%" }] }
            off-hours: { budgets: [{ nodes: "50%", reasons: [Underutilized, Empty] }], consolidateAfter: 5m }
      workloads:
        - name: inference
          selector: { namespaces: [ml], labels: { schedule: office } }
          replicas: { off-hours: 0 }
      """;

  /** Monday 2026-03-02, 22:00 in Berlin (CET), and Tuesday 10:00. */
  static final Instant NIGHT = Instant.parse("2026-03-02T21:00:00Z");

  static final Instant NEXT_DAY = Instant.parse("2026-03-03T09:00:00Z");
  static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  static final Map<String, String> OFFICE = Map.of("schedule", "office");

  SimCluster cluster;
  KubernetesClient client;
  SimObjects objects;
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();

  @BeforeEach
  void start() {
    cluster = SimCluster.start(SimTime.realTime());
    client = cluster.newClient();
    objects = cluster.objects();
    objects.create(
        SimObjects.nodePool("gpu-a100", Map.of("team", "ml"), "[{\"nodes\":\"10%\"}]", "30s"));
    objects.create(
        SimObjects.nodePool("cpu", Map.of("team", "web"), "[{\"nodes\":\"20%\"}]", "1m"));
    objects.create(SimObjects.deployment("ml", "chat", 4, OFFICE, CREATED));
    objects.create(SimObjects.statefulSet("ml", "vector-db", 3, OFFICE, CREATED));
    objects.create(SimObjects.deployment("ml", "always-on", 2, Map.of(), CREATED));
  }

  @AfterEach
  void stop() {
    client.close();
    cluster.close();
  }

  ScheduleService service(String policy) {
    return ScheduleWiring.service(
        client,
        ScheduleSettings.defaults("sim", "inline"),
        PolicySourcePort.inline(policy, "inline"),
        metrics,
        publisher,
        notifier,
        Clock.fixed(NIGHT, ZoneOffset.UTC));
  }

  ScheduleOutcome run(String policy, Instant at) {
    return service(policy).reconcile(at, false, null);
  }

  int replicas(String kind, String name) {
    return objects.require(kind, "ml", name).at("/spec/replicas").asInt();
  }

  /** The schedule's remembered state of a Deployment/StatefulSet ({@code Kind.name}), or null. */
  JsonNode state(String ns, String key) {
    var cm = client.configMaps().inNamespace(ns).withName(ReplicaState.STATE_CONFIGMAP).get();
    String text = cm == null || cm.getData() == null ? null : cm.getData().get(key);
    try {
      return text == null ? null : Json.MAPPER.readTree(text);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  JsonNode annotations(String kind, String ns, String name) {
    return objects.require(kind, ns, name).path("metadata").path("annotations");
  }

  @Test
  void shouldScaleDownAtNightAndRestoreInTheMorning() {
    ScheduleOutcome night = run(POLICY, NIGHT);

    assertThat(night.status()).isEqualTo(Status.RECONCILED);
    assertThat(night.window()).isEqualTo("off-hours");
    assertThat(replicas("Deployment", "chat")).isZero();
    assertThat(replicas("StatefulSet", "vector-db")).isZero();
    assertThat(replicas("Deployment", "always-on")).isEqualTo(2);
    // the original is remembered in the namespace's state ConfigMap (a scale-only identity cannot
    // annotate the Deployment)
    assertThat(state("ml", "Deployment.chat").path("original").toString())
        .isEqualTo("{\"replicas\":4}");
    assertThat(state("ml", "Deployment.chat").path("applied").path("fields").toString())
        .isEqualTo("{\"replicas\":0}");
    assertThat(annotations("Deployment", "ml", "chat").has(Planner.ORIGINAL)).isFalse();
    assertThat(night.changes())
        .filteredOn(c -> c.name().equals("chat"))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.action()).isEqualTo(Action.APPLY);
              assertThat(c.before().toString()).isEqualTo("{\"replicas\":4}");
              assertThat(c.after().toString()).isEqualTo("{\"replicas\":0}");
              assertThat(c.result()).isEqualTo(Change.Result.APPLIED);
            });

    ScheduleOutcome morning = run(POLICY, NEXT_DAY);

    assertThat(morning.window()).isEqualTo("business-hours");
    assertThat(replicas("Deployment", "chat")).isEqualTo(4);
    assertThat(replicas("StatefulSet", "vector-db")).isEqualTo(3);
    assertThat(state("ml", "Deployment.chat")).as("bookkeeping removed after the restore").isNull();
    assertThat(state("ml", "StatefulSet.vector-db")).isNull();
    assertThat(morning.changes()).extracting(Change::action).containsOnly(Action.RESTORE);
    // Kubernetes Events on the changed objects, an EventBridge outcome per run with changes
    assertThat(cluster.events())
        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("GpuFleetScheduleApplied"))
        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("GpuFleetScheduleRestored"));
    assertThat(publisher.published).hasSize(2);
    assertThat(metrics.total("Restored")).isEqualTo(3);
    assertThat(metrics.total("ObjectsWritten")).isEqualTo(6);
  }

  @Test
  void shouldWriteNothingOnASecondUnchangedRun() {
    run(POLICY, NIGHT);
    objects.clearWrites();
    cluster.clearRequests();

    ScheduleOutcome again = run(POLICY, NIGHT.plusSeconds(900));

    assertThat(again.writes()).isZero();
    assertThat(again.changes()).isEmpty();
    assertThat(objects.writes()).isEmpty();
    assertThat(cluster.requests()).isNotEmpty();
    assertThat(cluster.requests()).allSatisfy(r -> assertThat(r.method()).isEqualTo("GET"));
  }

  @Test
  void shouldPatchNodePoolBudgetsWithoutTouchingAnyOtherField() {
    ObjectNode before = objects.require("NodePool", null, "gpu-a100");

    run(POLICY, NIGHT);

    ObjectNode after = objects.require("NodePool", null, "gpu-a100");
    assertThat(after.at("/spec/disruption/budgets").toString())
        .isEqualTo("[{\"nodes\":\"50%\",\"reasons\":[\"Underutilized\",\"Empty\"]}]");
    assertThat(after.at("/spec/disruption/consolidateAfter").asText()).isEqualTo("5m");
    // everything else is exactly as it was (bookkeeping the server writes aside: resourceVersion,
    // generation, and managedFields, where the apply made gpufleet the owner of what it set)
    ObjectNode expected = before.deepCopy();
    ObjectNode disruption = (ObjectNode) expected.at("/spec/disruption");
    disruption.set("budgets", after.at("/spec/disruption/budgets"));
    disruption.put("consolidateAfter", "5m");
    ((ObjectNode) expected.get("metadata"))
        .remove(List.of("resourceVersion", "generation", "managedFields"));
    ObjectNode actual = after.deepCopy();
    ((ObjectNode) actual.get("metadata"))
        .remove(List.of("annotations", "resourceVersion", "generation", "managedFields"));
    assertThat(actual).isEqualTo(expected);
    // a spec change, so the generation went up by one
    assertThat(after.at("/metadata/generation").asLong())
        .isEqualTo(before.at("/metadata/generation").asLong() + 1);
    assertThat(after.at("/spec/disruption/consolidationPolicy").asText())
        .isEqualTo("WhenEmptyOrUnderutilized");
    assertThat(after.at("/spec/template/spec/requirements/0/values").toString())
        .isEqualTo("[\"p5\",\"g6e\"]");
    // the CPU pool is not selected
    assertThat(
            objects
                .require("NodePool", null, "cpu")
                .at("/spec/disruption/budgets/0/nodes")
                .asText())
        .isEqualTo("20%");

    run(POLICY, NEXT_DAY);

    ObjectNode restored = objects.require("NodePool", null, "gpu-a100");
    assertThat(restored.at("/spec/disruption/budgets").toString())
        .isEqualTo("[{\"nodes\":\"10%\"}]");
    assertThat(restored.at("/spec/disruption/consolidateAfter").asText()).isEqualTo("30s");
  }

  @Test
  void shouldApplyNodePoolsAndScaleWorkloadsOnlyThroughTheScaleSubresource() throws Exception {
    run(POLICY, NIGHT);

    var writes = objects.writes();
    assertThat(writes).hasSize(3);
    var pool =
        writes.stream()
            .filter(w -> w.path().contains("/nodepools/gpu-a100"))
            .findFirst()
            .orElseThrow();
    assertThat(pool.method()).isEqualTo("PATCH");
    assertThat(pool.contentType()).startsWith("application/apply-patch+yaml");
    assertThat(pool.query()).contains("fieldManager=gpufleet").contains("force=true");
    JsonNode body = Json.MAPPER.readTree(pool.body());
    assertThat(body.path("apiVersion").asText()).isEqualTo("karpenter.sh/v1");
    assertThat(body.path("kind").asText()).isEqualTo("NodePool");
    assertThat(body.path("metadata").path("uid").asText()).isNotBlank();
    assertThat(body.path("metadata").path("resourceVersion").asText()).isNotBlank();
    assertThat(body.path("spec").fieldNames()).toIterable().containsExactly("disruption");
    assertThat(body.path("spec").path("disruption").fieldNames())
        .toIterable()
        .containsExactlyInAnyOrder("budgets", "consolidateAfter");
    // the Deployment and the StatefulSet: a conditional PUT of their Scale, nothing else
    assertThat(writes)
        .filteredOn(w -> !w.path().contains("/nodepools/"))
        .extracting(w -> w.method(), w -> w.path())
        .containsExactlyInAnyOrder(
            tuple("PUT", "/apis/apps/v1/namespaces/ml/deployments/chat/scale"),
            tuple("PUT", "/apis/apps/v1/namespaces/ml/statefulsets/vector-db/scale"));
    var scale =
        writes.stream().filter(w -> w.path().endsWith("/deployments/chat/scale")).findFirst();
    JsonNode s = Json.MAPPER.readTree(scale.orElseThrow().body());
    assertThat(s.path("kind").asText()).isEqualTo("Scale");
    assertThat(s.path("spec").toString()).isEqualTo("{\"replicas\":0}");
    assertThat(s.path("metadata").path("resourceVersion").asText()).isNotBlank();
    assertThat(s.path("metadata").path("uid").asText()).isNotBlank();
  }

  @Test
  void shouldNotRestoreWhenSomeoneChangedReplicasInBetween() {
    run(POLICY, NIGHT);
    // an engineer needs the chat service at night
    objects.scale("Deployment", "ml", "chat", 2);

    ScheduleOutcome laterThatNight = run(POLICY, NIGHT.plusSeconds(900));

    assertThat(replicas("Deployment", "chat")).as("not scaled down again").isEqualTo(2);
    assertThat(laterThatNight.writes()).isZero();
    assertThat(laterThatNight.notices())
        .filteredOn(c -> c.name().equals("chat"))
        .singleElement()
        .satisfies(c -> assertThat(c.action()).isEqualTo(Action.HOLD));

    ScheduleOutcome morning = run(POLICY, NEXT_DAY);

    assertThat(replicas("Deployment", "chat"))
        .as("their value is kept, not the original 4")
        .isEqualTo(2);
    assertThat(morning.changes())
        .filteredOn(c -> c.name().equals("chat"))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.action()).isEqualTo(Action.RELEASE);
              assertThat(c.note())
                  .contains("changed by someone else")
                  .contains("replicas: gpufleet 0, now 2");
            });
    assertThat(state("ml", "Deployment.chat")).isNull();
    // the StatefulSet nobody touched is restored as usual
    assertThat(replicas("StatefulSet", "vector-db")).isEqualTo(3);
    assertThat(cluster.events())
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("GpuFleetScheduleReleased");
              assertThat(e.getType()).isEqualTo("Warning");
            });
    assertThat(metrics.total("ChangedByOthers")).isEqualTo(1);
    assertThat(metrics.total("Held")).isEqualTo(1);
    // night (changes), later that night (held only: nothing published), morning (changes)
    assertThat(publisher.published).hasSize(2);
  }

  static final String KEDA_POLICY =
      POLICY.replace(
          "    replicas: { off-hours: 0 }",
          "    replicas: { off-hours: 0 }\n"
              + "  - name: queues\n"
              + "    selector: { namespaces: [jobs] }\n"
              + "    kinds: [ScaledObject, HorizontalPodAutoscaler]\n"
              + "    replicas: { off-hours: 0 }");

  @Test
  void shouldPauseKedaAndRestoreAPreExistingPausedReplicasValue() {
    objects.create(SimObjects.deployment("jobs", "worker", 3, Map.of(), CREATED));
    objects.create(SimObjects.scaledObject("jobs", "worker", "worker", "5", Map.of()));
    objects.create(SimObjects.deployment("jobs", "indexer", 1, Map.of(), CREATED));
    objects.create(SimObjects.scaledObject("jobs", "indexer", "indexer", null, Map.of()));

    run(KEDA_POLICY, NIGHT);

    assertThat(paused("worker")).isEqualTo("0");
    assertThat(paused("indexer")).isEqualTo("0");
    assertThat(objects.require("Deployment", "jobs", "worker").at("/spec/replicas").asInt())
        .as("KEDA's Deployment is never scaled directly")
        .isEqualTo(3);
    assertThat(annotations("ScaledObject", "jobs", "worker").path(Planner.ORIGINAL).asText())
        .isEqualTo("{\"pausedReplicas\":\"5\"}");

    run(KEDA_POLICY, NEXT_DAY);

    assertThat(paused("worker")).as("the pre-existing value is back").isEqualTo("5");
    assertThat(paused("indexer")).as("no value before, none after").isNull();
    assertThat(annotations("ScaledObject", "jobs", "worker").has(Planner.ORIGINAL)).isFalse();
  }

  String paused(String scaledObject) {
    JsonNode a = annotations("ScaledObject", "jobs", scaledObject).get(Planner.KEDA_PAUSED);
    return a == null ? null : a.asText();
  }

  @Test
  void shouldChangeHpaMinReplicasNotItsDeploymentAndRestoreIt() {
    objects.create(SimObjects.deployment("jobs", "api", 6, Map.of(), CREATED));
    objects.create(SimObjects.hpa("jobs", "api", "api", 3, 10, Map.of()));

    ScheduleOutcome night = run(KEDA_POLICY, NIGHT);

    ObjectNode hpa = objects.require("HorizontalPodAutoscaler", "jobs", "api");
    assertThat(hpa.at("/spec/minReplicas").asInt()).as("HPAs go down to 1, not 0").isEqualTo(1);
    assertThat(hpa.at("/spec/maxReplicas").asInt()).isEqualTo(10);
    assertThat(objects.require("Deployment", "jobs", "api").at("/spec/replicas").asInt())
        .isEqualTo(6);
    assertThat(night.changes())
        .filteredOn(c -> c.kind().equals("HorizontalPodAutoscaler"))
        .singleElement()
        .satisfies(c -> assertThat(c.note()).contains("clamped to 1"));

    run(KEDA_POLICY, NEXT_DAY);

    assertThat(
            objects
                .require("HorizontalPodAutoscaler", "jobs", "api")
                .at("/spec/minReplicas")
                .asInt())
        .isEqualTo(3);
  }

  @Test
  void shouldSkipAWorkloadScaledByAnHpaAndNewOrExcludedWorkloads() {
    objects.create(SimObjects.deployment("ml", "autoscaled", 5, OFFICE, CREATED));
    objects.create(SimObjects.hpa("ml", "autoscaled", "autoscaled", 2, 8, Map.of()));
    objects.create(SimObjects.deployment("ml", "brand-new", 2, OFFICE, NIGHT.minusSeconds(600)));
    var excluded = SimObjects.deployment("ml", "pinned", 2, OFFICE, CREATED);
    excluded.with("metadata").putObject("annotations").put("gpufleet.io/exclude", "true");
    objects.create(excluded);

    ScheduleOutcome night = run(POLICY, NIGHT);

    assertThat(replicas("Deployment", "autoscaled")).isEqualTo(5);
    assertThat(replicas("Deployment", "brand-new")).isEqualTo(2);
    assertThat(replicas("Deployment", "pinned")).isEqualTo(2);
    assertThat(night.notices())
        .extracting(Change::name, Change::action)
        .contains(
            tuple("autoscaled", Action.SKIP),
            tuple("brand-new", Action.SKIP),
            tuple("pinned", Action.SKIP));
    assertThat(night.notices())
        .filteredOn(c -> c.name().equals("brand-new"))
        .singleElement()
        .satisfies(c -> assertThat(c.note()).contains("new workload").contains("left alone until"));

    // an hour later the grace period is over
    run(POLICY, NIGHT.plusSeconds(3600));
    assertThat(replicas("Deployment", "brand-new")).isZero();
  }

  @Test
  void shouldReportTheFullDiffAndWriteNothingOnADryRun() {
    ScheduleOutcome dry = service(POLICY).reconcile(NIGHT, true, null);

    assertThat(dry.status()).isEqualTo(Status.DRY_RUN);
    assertThat(dry.writes()).isZero();
    assertThat(dry.changes())
        .extracting(
            Change::kind, Change::name, c -> c.before().toString(), c -> c.after().toString())
        .containsExactlyInAnyOrder(
            tuple(
                "NodePool",
                "gpu-a100",
                "{\"budgets\":[{\"nodes\":\"10%\"}],\"consolidateAfter\":\"30s\"}",
                "{\"budgets\":[{\"nodes\":\"50%\",\"reasons\":[\"Underutilized\",\"Empty\"]}],"
                    + "\"consolidateAfter\":\"5m\"}"),
            tuple("Deployment", "chat", "{\"replicas\":4}", "{\"replicas\":0}"),
            tuple("StatefulSet", "vector-db", "{\"replicas\":3}", "{\"replicas\":0}"));
    assertThat(dry.changes())
        .allSatisfy(c -> assertThat(c.result()).isEqualTo(Change.Result.DRY_RUN));
    assertThat(objects.writes()).isEmpty();
    assertThat(replicas("Deployment", "chat")).isEqualTo(4);
  }

  @Test
  void shouldWriteNothingWhenThePolicyIsInvalid() {
    ScheduleOutcome bad = run(POLICY.replace("\"50%\"", "\"500%\""), NIGHT);

    assertThat(bad.status()).isEqualTo(Status.INVALID_POLICY);
    assertThat(bad.message()).contains("'500%' is outside 0-100%");
    assertThat(objects.writes()).isEmpty();
    assertThat(cluster.requests()).as("not even a read").isEmpty();
    assertThat(notifier.sent).hasSize(1);
  }

  @Test
  void shouldReportAFailedWriteAsPartialAndHealItOnTheNextRun() {
    // the API server fails the first scale of the StatefulSet (its state entry is written first)
    cluster.fail(
        r -> r.getMethod().equals("PUT") && r.getPath().contains("/statefulsets/vector-db/scale"),
        500,
        1);

    ScheduleOutcome first = run(POLICY, NIGHT);

    assertThat(first.status()).isEqualTo(Status.PARTIAL);
    assertThat(first.failed()).isEqualTo(1);
    assertThat(first.changes())
        .filteredOn(c -> c.result() == Change.Result.FAILED)
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.name()).isEqualTo("vector-db");
              assertThat(c.error()).contains("HTTP 500");
            });
    assertThat(replicas("Deployment", "chat")).as("the other writes went through").isZero();
    assertThat(notifier.sent).hasSize(1);
    assertThat(metrics.total("WritesFailed")).isEqualTo(1);

    ScheduleOutcome next = run(POLICY, NIGHT.plusSeconds(900));

    // the entry of the scale that never landed (same generation, replicas not applied) is
    // recognised: the next run applies it again, from the original 3
    assertThat(next.status()).isEqualTo(Status.RECONCILED);
    assertThat(next.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.name()).isEqualTo("vector-db");
              assertThat(c.action()).isEqualTo(Action.APPLY);
              assertThat(c.before().toString()).isEqualTo("{\"replicas\":3}");
            });
    assertThat(replicas("StatefulSet", "vector-db")).isZero();
    assertThat(state("ml", "StatefulSet.vector-db").path("original").toString())
        .isEqualTo("{\"replicas\":3}");
  }

  @Test
  void shouldReportAConflictWhenTheObjectChangesBetweenReadAndWrite() {
    var gateway = new ScheduleClusterAdapter(client, Clock.systemUTC());
    var chat =
        gateway.workloads().stream()
            .filter(w -> w.ref().name().equals("chat"))
            .findFirst()
            .orElseThrow();
    objects.patch("Deployment", "ml", "chat", "{\"metadata\":{\"labels\":{\"touched\":\"yes\"}}}");

    var fields = Json.MAPPER.createObjectNode().put("replicas", 0);
    assertThatThrownBy(() -> gateway.apply(new Write(chat.ref(), fields, Map.of())))
        .hasMessageContaining("HTTP 409")
        .hasMessageContaining("Deployment ml/chat changed while reconciling");
    assertThat(replicas("Deployment", "chat")).isEqualTo(4);
  }
}

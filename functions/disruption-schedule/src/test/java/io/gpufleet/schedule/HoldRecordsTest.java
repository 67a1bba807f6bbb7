package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.store.MemoryBlobStore;
import io.gpufleet.schedule.wiring.ScheduleWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimObjects;
import io.gpufleet.sim.SimTime;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The schedule's hold records: the real service and gateway against the simulated API server, the
 * records read back from the store they were written to.
 */
class HoldRecordsTest {
  static final String ACCOUNT = "111122223333";
  static final Instant NIGHT = ReconcileTest.NIGHT;
  static final String NIGHT_KEY =
      "schedule/billing_period=2026-03/account=111122223333/cluster=sim/20260302T210000Z.json";

  SimCluster cluster;
  KubernetesClient client;
  SimObjects objects;
  final MemoryBlobStore store = new MemoryBlobStore();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();

  @BeforeEach
  void start() {
    cluster = SimCluster.start(SimTime.realTime());
    client = cluster.newClient();
    objects = cluster.objects();
    objects.create(
        SimObjects.nodePool("gpu-a100", Map.of("team", "ml"), "[{\"nodes\":\"10%\"}]", "30s"));
    // two GPUs per replica (requests), the team on the pod template
    ObjectNode chat =
        SimObjects.deployment("ml", "chat", 4, ReconcileTest.OFFICE, ReconcileTest.CREATED);
    ((ObjectNode) chat.at("/spec/template/metadata/labels")).put("team", "ml-serving");
    ((ObjectNode) chat.at("/spec/template/spec/containers/0"))
        .putObject("resources")
        .putObject("requests")
        .put("nvidia.com/gpu", "2")
        .put("cpu", "8");
    objects.create(chat);
    // one Neuron device per replica (limits only), the team on the StatefulSet itself
    ObjectNode db =
        SimObjects.statefulSet(
            "ml",
            "vector-db",
            3,
            Map.of("schedule", "office", "team", "data"),
            ReconcileTest.CREATED);
    ((ObjectNode) db.at("/spec/template/spec/containers/0"))
        .putObject("resources")
        .putObject("limits")
        .put("aws.amazon.com/neuron", 1);
    objects.create(db);
    objects.create(SimObjects.deployment("ml", "always-on", 2, Map.of(), ReconcileTest.CREATED));
  }

  @AfterEach
  void stop() {
    client.close();
    cluster.close();
  }

  ScheduleService service() {
    return ScheduleWiring.service(
            client,
            ScheduleSettings.defaults("sim", "inline"),
            PolicySourcePort.inline(ReconcileTest.POLICY, "inline"),
            metrics,
            new Recorders.RecordingPublisher(),
            new Recorders.RecordingNotifier(),
            Clock.fixed(NIGHT, ZoneOffset.UTC))
        .withRecords(new HoldRecords.Recorder(store, ACCOUNT, "team"));
  }

  List<JsonNode> lines(String key) throws Exception {
    String text = new String(store.get(key).orElseThrow(), StandardCharsets.UTF_8);
    HoldRecords.check(key, text);
    var out = new ArrayList<JsonNode>();
    for (String l : text.split("\n")) {
      out.add(Json.MAPPER.readTree(l));
    }
    return out;
  }

  static String describe(JsonNode l) {
    return l.path("kind").asText()
        + " "
        + l.path("name").asText()
        + " "
        + l.path("team").asText()
        + " "
        + l.path("replicas_original").asText()
        + "->"
        + l.path("replicas_held").asText()
        + " x"
        + l.path("gpus_per_replica").asText();
  }

  @Test
  void shouldRecordWhatTheNightHoldsDownAndNothingOnceTheMorningRestoredIt() throws Exception {
    // Given the office-hours policy, When the night run scales the workloads down
    service().reconcile(NIGHT, false, null);

    // Then its record names the run and every held object with its replicas and accelerators
    var night = lines(NIGHT_KEY);
    assertThat(night.get(0).path("kind").asText()).isEqualTo(HoldRecords.RUN);
    assertThat(night)
        .allSatisfy(
            l -> {
              assertThat(l.path("run_at").asText()).isEqualTo("2026-03-02T21:00:00Z");
              assertThat(l.path("run_epoch").asLong()).isEqualTo(NIGHT.getEpochSecond());
              assertThat(l.path("schedule_window").asText()).isEqualTo("off-hours");
            });
    assertThat(night.subList(1, night.size()))
        .extracting(HoldRecordsTest::describe)
        .containsExactlyInAnyOrder(
            "NodePool gpu-a100 ml null->null xnull",
            "Deployment chat ml-serving 4->0 x2",
            "StatefulSet vector-db data 3->0 x1");

    // When a later run writes nothing, it still records the holds (level-triggered)
    Instant later = NIGHT.plusSeconds(900);
    service().reconcile(later, false, null);
    String laterKey = HoldRecords.key(ACCOUNT, "sim", later);
    assertThat(lines(laterKey)).extracting(HoldRecordsTest::describe).hasSize(4);

    // When the morning restores them, Then its record holds no workload
    Instant morning = ReconcileTest.NEXT_DAY;
    service().reconcile(morning, false, null);
    assertThat(lines(HoldRecords.key(ACCOUNT, "sim", morning)))
        .extracting(l -> l.path("kind").asText())
        .doesNotContain("Deployment", "StatefulSet");
  }

  @Test
  void shouldRecordTheReplicasSomeoneElseSetWhileTheWindowLasts() throws Exception {
    service().reconcile(NIGHT, false, null);
    objects.scale("Deployment", "ml", "chat", 1);

    Instant later = NIGHT.plusSeconds(900);
    service().reconcile(later, false, null);

    assertThat(lines(HoldRecords.key(ACCOUNT, "sim", later)))
        .extracting(HoldRecordsTest::describe)
        .contains("Deployment chat ml-serving 4->1 x2");
  }

  @Test
  void shouldKeyARunByItsTickSoARepeatedDeliveryReplacesIt() {
    var tick = new ScheduleTick("id", "arn:aws:scheduler:::schedule/default/s", NIGHT, 1, false);
    service().reconcile(NIGHT.plusSeconds(7), false, tick);
    service().reconcile(NIGHT.plusSeconds(9), false, tick);

    assertThat(store.keys()).filteredOn(k -> k.startsWith(HoldRecords.PREFIX)).hasSize(1);
    String text = new String(store.get(NIGHT_KEY).orElseThrow(), StandardCharsets.UTF_8);
    assertThat(text).contains("\"tick\":\"2026-03-02T21:00:00Z\"");
    assertThat(text).contains("\"run_at\":\"2026-03-02T21:00:09Z\"");
  }

  @Test
  void shouldRecordNothingWithoutABucketAndRefuseAnIncompleteConfiguration() {
    assertThat(HoldRecords.Recorder.from(new Settings(Map.of()), b -> store).enabled()).isFalse();
    assertThatThrownBy(
            () ->
                HoldRecords.Recorder.from(
                    new Settings(Map.of("SCHEDULE_RECORDS_BUCKET", "b")), b -> store))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SCHEDULE_ACCOUNT_ID");
    assertThatThrownBy(
            () ->
                HoldRecords.Recorder.from(
                    new Settings(Map.of("COST_TEAM_LABEL", "not a label")), b -> store))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("COST_TEAM_LABEL");
    var on =
        HoldRecords.Recorder.from(
            new Settings(Map.of("SCHEDULE_RECORDS_BUCKET", "b", "SCHEDULE_ACCOUNT_ID", ACCOUNT)),
            b -> store);
    assertThat(on.enabled()).isTrue();
    assertThat(on.teamLabel()).isEqualTo("team");
  }

  static final String RUN_LINE =
      "{\"run_at\":\"2026-03-02T21:00:00Z\",\"run_epoch\":1772485200,\"tick\":null,"
          + "\"schedule_window\":\"off-hours\",\"kind\":\"(run)\"}";
  static final String HOLD_LINE =
      "{\"run_at\":\"2026-03-02T21:00:00Z\",\"run_epoch\":1772485200,"
          + "\"schedule_window\":\"off-hours\",\"kind\":\"Deployment\",\"namespace\":\"ml\","
          + "\"name\":\"chat\",\"team\":\"t\",\"replicas_original\":4,\"replicas_held\":1,"
          + "\"gpus_per_replica\":2}";

  @Test
  void shouldAcceptTheRecordsItWrites() {
    HoldRecords.check("f.json", RUN_LINE + "\n" + HOLD_LINE + "\n");
    String written =
        new String(
            HoldRecords.lines(
                NIGHT,
                null,
                "off-hours",
                List.of(new HoldRecords.Hold("Deployment", "ml", "chat", null, 4, 0, 1))),
            StandardCharsets.UTF_8);
    HoldRecords.check("written.json", written);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "not JSON|{\"run_at\":|-|line 2: not JSON",
        "held not below|\"replicas_held\":1|\"replicas_held\":4|line 2: replicas_held 4 is not below"
            + " replicas_original 4",
        "negative|\"replicas_original\":4|\"replicas_original\":-4|line 2: replicas_original is"
            + " missing or not a whole number >= 0",
        "text count|\"gpus_per_replica\":2|\"gpus_per_replica\":\"2\"|line 2: gpus_per_replica is"
            + " missing",
        "epoch|\"run_epoch\":1772485200,\"schedule|\"run_epoch\":1772485201,\"schedule|line 2:"
            + " run_epoch 1772485201 is not run_at",
        "bad time|2026-03-02T21:00:00Z\",\"run_epoch\":1772485200,\"schedule|2026-03-02 21:00\","
            + "\"run_epoch\":1772485200,\"schedule|line 2: run_at '2026-03-02 21:00' is not an"
            + " ISO-8601",
        "kind|\"Deployment\"|\"Pod\"|line 2: kind 'Pod' is not one of",
        "unknown field|\"team\"|\"owner\"|line 2: unknown field 'owner'",
      })
  void shouldNameTheLineAndTheFaultOfABadRecord(String what, String from, String to, String msg) {
    String bad =
        what.equals("not JSON")
            ? RUN_LINE + "\n" + from
            : RUN_LINE + "\n" + HOLD_LINE.replace(from, to);
    assertThatThrownBy(() -> HoldRecords.check("s/f.json", bad))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("schedule record s/f.json ")
        .hasMessageContaining(msg);
  }

  @Test
  void shouldRefuseARecordWithoutItsRunLine() {
    assertThatThrownBy(() -> HoldRecords.check("f.json", HOLD_LINE))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("0 lines of kind (run), not 1");
  }
}

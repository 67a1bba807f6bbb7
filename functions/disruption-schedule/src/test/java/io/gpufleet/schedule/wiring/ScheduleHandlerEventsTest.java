package io.gpufleet.schedule.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.schedule.PolicySourcePort;
import io.gpufleet.schedule.ScheduleSettings;
import io.gpufleet.schedule.ScheduleTick;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.model.ScheduleOutcome.Status;
import io.gpufleet.sim.DemoWorkloads;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimObjects;
import io.gpufleet.sim.SimTime;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Handler tier: every schedule tick in the repository's events/ goes through {@link
 * ScheduleHandler#handleRequest} as Lambda calls it (raw bytes in, JSON out) against the simulated
 * demo cluster, with the example policy from deploy/policy, the clock at the tick's scheduled time.
 */
class ScheduleHandlerEventsTest {
  SimCluster cluster;
  KubernetesClient client;
  SimObjects objects;
  final VirtualTime time = new VirtualTime(Instant.EPOCH);
  final Clock clock = time.clock();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  ScheduleHandler handler;

  static Path root() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("events")) && Files.isDirectory(dir.resolve("deploy"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no events/ directory above " + Path.of("").toAbsolutePath());
  }

  static Stream<Path> ticks() throws IOException {
    try (var files = Files.list(root().resolve("events"))) {
      return files
          .filter(p -> p.toString().endsWith(".json"))
          .filter(p -> read(p).path("detail-type").asText().equals(ScheduleTick.DETAIL_TYPE))
          .sorted()
          .toList()
          .stream();
    }
  }

  static JsonNode read(Path p) {
    try {
      return Json.MAPPER.readTree(Files.readAllBytes(p));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @BeforeEach
  void start() {
    cluster = SimCluster.start(SimTime.realTime());
    client = cluster.newClient();
    objects = cluster.objects();
    DemoWorkloads.populate(cluster);
    var policy =
        PolicySourcePort.file(root().resolve("deploy/policy/disruption-schedule.example.yaml"));
    var service =
        ScheduleWiring.service(
            client,
            ScheduleSettings.defaults("demo", policy.name()),
            policy,
            metrics,
            publisher,
            io.gpufleet.core.outcome.NotifierPort.NONE,
            clock);
    handler = new ScheduleHandler(service, metrics);
  }

  @AfterEach
  void stop() {
    client.close();
    cluster.close();
  }

  ScheduleOutcome invoke(byte[] payload) throws IOException {
    var out = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(payload), out, new LocalContext("disruption-schedule", 60_000));
    return Json.MAPPER.readValue(out.toByteArray(), ScheduleOutcome.class);
  }

  ScheduleOutcome invoke(Path file, Duration shift) throws IOException {
    JsonNode event = read(file).deepCopy();
    Instant at = Instant.parse(event.path("detail").path("scheduledTime").asText()).plus(shift);
    ((com.fasterxml.jackson.databind.node.ObjectNode) event.get("detail"))
        .put("scheduledTime", at.toString());
    time.set(at.plusSeconds(2));
    return invoke(Json.MAPPER.writeValueAsBytes(event));
  }

  Path file(String name) {
    return root().resolve("events").resolve(name);
  }

  int replicas(String ns, String kind, String name) {
    return objects.require(kind, ns, name).at("/spec/replicas").asInt();
  }

  /** The event corpus (peers' fixtures, AWS samples, stray payloads) and every other sample. */
  static Stream<String> notAddressedToTheSchedule() throws IOException {
    Path events = root().resolve("events");
    var names = new java.util.ArrayList<String>();
    try (var files = Files.walk(events)) {
      files
          .filter(Files::isRegularFile)
          .filter(p -> !p.toString().endsWith(".md") && !p.endsWith("corpus.json"))
          .filter(
              p ->
                  !p.toString().endsWith(".json")
                      || !readLenient(p)
                          .path("detail-type")
                          .asText()
                          .equals(ScheduleTick.DETAIL_TYPE))
          .forEach(p -> names.add(events.relativize(p).toString()));
    }
    assertThat(names).hasSizeGreaterThan(40);
    return names.stream().sorted();
  }

  static JsonNode readLenient(Path p) {
    try {
      return Json.MAPPER.readTree(Files.readAllBytes(p));
    } catch (IOException e) {
      return Json.MAPPER.nullNode();
    }
  }

  @ParameterizedTest
  @MethodSource("notAddressedToTheSchedule")
  void shouldRejectEveryPayloadNotAddressedToIt(String file) throws IOException {
    cluster.clearRequests();

    var o = invoke(Files.readAllBytes(root().resolve("events").resolve(file)));

    assertThat(o.status()).as(o.message()).isEqualTo(Status.REJECTED);
    assertThat(o.message()).hasSizeLessThan(300);
    assertThat(cluster.requests()).isEmpty();
    assertThat(publisher.published).isEmpty();
  }

  @Test
  void shouldRejectATickFollowedByTrailingData() throws IOException {
    byte[] tick = Files.readAllBytes(file("schedule-tick-night.json"));
    byte[] twice =
        (new String(tick, StandardCharsets.UTF_8) + " {}").getBytes(StandardCharsets.UTF_8);

    var o = invoke(twice);

    assertThat(o.status()).isEqualTo(Status.REJECTED);
    assertThat(o.message()).startsWith("not JSON");
  }

  @Test
  void shouldFindBothScheduleTicksInEvents() throws IOException {
    assertThat(ticks().map(p -> p.getFileName().toString()))
        .containsExactly("schedule-tick-business-hours.json", "schedule-tick-night.json");
  }

  @ParameterizedTest
  @MethodSource("ticks")
  void shouldHandleEverySampleTick(Path file) throws IOException {
    ScheduleOutcome o = invoke(file, Duration.ZERO);

    assertThat(o.status()).isEqualTo(Status.RECONCILED);
    assertThat(o.scheduleArn()).startsWith("arn:aws:scheduler:");
    assertThat(o.timeZone()).isEqualTo("Europe/Berlin");
    boolean night = file.getFileName().toString().contains("night");
    assertThat(o.window()).isEqualTo(night ? "off-hours" : "business-hours");
    if (night) {
      assertThat(replicas("ml", "Deployment", "chat-inference")).isZero();
      assertThat(replicas("ml", "StatefulSet", "vector-db")).isZero();
      assertThat(replicas("ml", "Deployment", "fraud-scoring")).as("excluded").isEqualTo(2);
      assertThat(
              objects
                  .require("NodePool", null, "gpu-h100")
                  .at("/spec/disruption/budgets/0/nodes")
                  .asText())
          .isEqualTo("50%");
      assertThat(
              objects
                  .require("NodePool", null, "cpu-general")
                  .at("/spec/disruption/budgets/0/nodes")
                  .asText())
          .isEqualTo("20%");
      assertThat(
              objects
                  .require("ScaledObject", "jobs", "batch-worker")
                  .at("/metadata/annotations/autoscaling.keda.sh~1paused-replicas")
                  .asText())
          .isEqualTo("0");
      assertThat(
              objects
                  .require("HorizontalPodAutoscaler", "jobs", "api")
                  .at("/spec/minReplicas")
                  .asInt())
          .isEqualTo(1);
    } else {
      // business hours on a cluster already at its own values: nothing to write
      assertThat(o.changes()).isEmpty();
      assertThat(replicas("ml", "Deployment", "chat-inference")).isEqualTo(4);
    }
  }

  @Test
  void shouldRestoreEverythingOnTheNextMorningsTick() throws IOException {
    invoke(file("schedule-tick-night.json"), Duration.ZERO);

    ScheduleOutcome morning = invoke(file("schedule-tick-business-hours.json"), Duration.ofDays(1));

    assertThat(morning.window()).isEqualTo("business-hours");
    assertThat(replicas("ml", "Deployment", "chat-inference")).isEqualTo(4);
    assertThat(replicas("ml", "StatefulSet", "vector-db")).isEqualTo(3);
    assertThat(objects.require("NodePool", null, "gpu-h100").at("/spec/disruption").toString())
        .isEqualTo(
            "{\"consolidationPolicy\":\"WhenEmptyOrUnderutilized\",\"consolidateAfter\":\"30m\","
                + "\"budgets\":[{\"nodes\":\"10%\"}]}");
    assertThat(
            objects
                .require("ScaledObject", "jobs", "reindexer")
                .at("/metadata/annotations/autoscaling.keda.sh~1paused-replicas")
                .asText())
        .as("the team's own pause is back")
        .isEqualTo("2");
    assertThat(
            objects
                .require("ScaledObject", "jobs", "batch-worker")
                .at("/metadata/annotations/autoscaling.keda.sh~1paused-replicas")
                .isMissingNode())
        .isTrue();
    assertThat(
            objects
                .require("HorizontalPodAutoscaler", "jobs", "api")
                .at("/spec/minReplicas")
                .asInt())
        .isEqualTo(3);
  }

  @Test
  void shouldAnswerARepeatDeliveryAsDuplicateWithoutWriting() throws IOException {
    ScheduleOutcome first = invoke(file("schedule-tick-night.json"), Duration.ZERO);
    objects.clearWrites();

    ScheduleOutcome again = invoke(file("schedule-tick-night.json"), Duration.ZERO);

    assertThat(first.status()).isEqualTo(Status.RECONCILED);
    assertThat(again.status()).isEqualTo(Status.DUPLICATE);
    assertThat(objects.writes()).isEmpty();
  }

  @Test
  void shouldAnswerALateOlderTickAsSuperseded() throws IOException {
    invoke(file("schedule-tick-night.json"), Duration.ZERO);

    ScheduleOutcome late = invoke(file("schedule-tick-night.json"), Duration.ofMinutes(-15));

    assertThat(late.status()).isEqualTo(Status.SUPERSEDED);
  }

  @Test
  void shouldRejectAPayloadThatIsNoTickAndCountIt() throws IOException {
    ScheduleOutcome o =
        invoke(
            "{\"source\":\"aws.ec2\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\",\"detail\":{}}"
                .getBytes(StandardCharsets.UTF_8));

    assertThat(o.status()).isEqualTo(Status.REJECTED);
    assertThat(o.message()).contains("not a schedule tick");
    assertThat(metrics.total("RunsRejected")).isEqualTo(1);
    assertThat(metrics.flushes.get()).isEqualTo(1);
  }

  @Test
  void shouldRunDryWhenTheTickAsksForIt() throws IOException {
    JsonNode event = read(file("schedule-tick-night.json")).deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) event.get("detail")).put("dryRun", true);
    time.set(Instant.parse("2026-03-30T20:15:02Z"));

    ScheduleOutcome o = invoke(Json.MAPPER.writeValueAsBytes(event));

    assertThat(o.status()).isEqualTo(Status.DRY_RUN);
    assertThat(o.changes()).hasSizeGreaterThan(5);
    assertThat(objects.writes()).isEmpty();
  }
}

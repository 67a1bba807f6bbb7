package io.gpufleet.drain.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.type.TypeFactory;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.DrainFixture;
import io.gpufleet.drain.DrainPolicy;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.PodReport;
import io.gpufleet.sim.ApiRequest;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Handler tier: every sample in the repository's events/ that this function handles goes through
 * {@link DrainHandler#handleRequest} as Lambda calls it (raw bytes in, JSON out), against the
 * simulated demo fleet, and the cluster's end state is asserted per file.
 */
public class DrainHandlerEventsTest {
  public static final int LAMBDA_MILLIS = 170_000;
  static final Set<String> DRAIN_TYPES =
      Set.of(
          EventDecoder.SPOT_WARNING,
          EventDecoder.REBALANCE,
          EventDecoder.STATE_CHANGE,
          EventDecoder.HEALTH,
          EventDecoder.LIFECYCLE_TERMINATE,
          EventDecoder.LIFECYCLE_LAUNCH,
          EventDecoder.CR_INTERRUPTION,
          EventDecoder.CAPACITY_BLOCK_EXPIRING);
  static final String TAINT_KEY = "gpufleet.io/interruption";

  VirtualTime time;
  SimCluster cluster;
  KubernetesClient client;
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  DrainHandler handler;
  static io.gpufleet.sim.aws.AwsStubServer stub;
  software.amazon.awssdk.services.autoscaling.AutoScalingClient autoScaling;
  io.gpufleet.sim.aws.SimAutoScaling asg;
  final List<String> continuations = new java.util.concurrent.CopyOnWriteArrayList<>();

  @org.junit.jupiter.api.BeforeAll
  static void startAutoScaling() {
    stub = io.gpufleet.sim.aws.AwsStubServer.start();
  }

  @org.junit.jupiter.api.AfterAll
  static void stopAutoScaling() {
    stub.close();
  }

  @BeforeEach
  void startTheDemoFleet() {
    time = new VirtualTime(DrainFixture.START);
    cluster = SimCluster.start(time);
    client = cluster.newClient();
    autoScaling = DrainFixture.autoScaling(stub, time);
    DemoFleet.populate(cluster);
    stub.reset();
    asg = new io.gpufleet.sim.aws.SimAutoScaling(stub, time);
    DemoFleet.populateCapacityBlock(cluster);
    var service =
        DrainWiring.service(
            client,
            DrainWiring.Parts.of(DrainSettings.defaults(DemoFleet.CLUSTER))
                .reportingTo(metrics, publisher, notifier)
                .timedBy(time)
                .withLifecycle(
                    new io.gpufleet.drain.aws.AutoScalingLifecycleAdapter(autoScaling),
                    (body, delay) -> continuations.add(body)));
    handler = new DrainHandler(service, metrics, time.clock());
  }

  @AfterEach
  void stop() {
    autoScaling.close();
    client.close();
    cluster.close();
  }

  // ---- the repository's events/ ----

  public static Path eventsDir() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path events = dir.resolve("events");
      if (Files.isDirectory(events) && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return events;
      }
    }
    throw new IllegalStateException("no events/ directory above " + Path.of("").toAbsolutePath());
  }

  public static JsonNode read(Path file) {
    try {
      return Json.MAPPER.readTree(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Stream<String> drainEventFiles() throws IOException {
    try (var files = Files.list(eventsDir())) {
      var names =
          files
              .filter(p -> p.toString().endsWith(".json"))
              .filter(p -> DRAIN_TYPES.contains(read(p).path("detail-type").asText()))
              .map(p -> p.getFileName().toString())
              .sorted()
              .toList();
      assertThat(names).as("drain samples in events/").isNotEmpty();
      return names.stream();
    }
  }

  public static byte[] rebase(JsonNode event, Instant now) throws IOException {
    return io.gpufleet.sim.SimEvents.rebase(event, now);
  }

  /** Invokes the handler the way the Lambda runtime does and returns its raw JSON answer. */
  JsonNode invoke(byte[] payload) throws IOException {
    var output = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(payload),
        output,
        new LocalContext("interruption-drain", LAMBDA_MILLIS));
    return Json.MAPPER.readTree(output.toByteArray());
  }

  public static List<DrainOutcome> outcomes(JsonNode json) {
    return Json.MAPPER.convertValue(
        json,
        TypeFactory.defaultInstance().constructCollectionType(List.class, DrainOutcome.class));
  }

  JsonNode invokeFile(String name) throws IOException {
    JsonNode event = read(eventsDir().resolve(name));
    asg.holdFor(event, java.time.Duration.ofMinutes(5));
    return invoke(rebase(event, time.now()));
  }

  // ---- the cluster's end state ----

  Node node(String name) {
    return cluster.node(name).orElseThrow();
  }

  static boolean unschedulable(Node n) {
    return Boolean.TRUE.equals(n.getSpec().getUnschedulable());
  }

  static boolean taintedFor(Node n, String kind) {
    return n.getSpec().getTaints() != null
        && n.getSpec().getTaints().stream()
            .anyMatch(
                t ->
                    TAINT_KEY.equals(t.getKey())
                        && kind.equals(t.getValue())
                        && "NoSchedule".equals(t.getEffect()));
  }

  static boolean ownedBy(Pod p, String kind) {
    var owners = p.getMetadata().getOwnerReferences();
    return owners != null && owners.stream().anyMatch(o -> kind.equals(o.getKind()));
  }

  /** The pods left on a node that are neither DaemonSet pods nor mirror pods. */
  List<String> evictablePodsLeftOn(String nodeName) {
    return cluster.podsOn(nodeName).stream()
        .filter(p -> !ownedBy(p, "DaemonSet") && !ownedBy(p, "Node"))
        .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
        .toList();
  }

  List<ApiRequest> requests(String method, String pathPart) {
    return cluster.requests().stream()
        .filter(r -> r.method().equals(method) && r.path().contains(pathPart))
        .toList();
  }

  static String nodeOf(int index) {
    return DemoFleet.NODES.get(index).name();
  }

  // ---- the tests ----

  @Test
  void shouldCountAnEventItCouldNotHandleAndThrowSoLambdaRetriesIt() {
    // Given the API server is gone
    cluster.close();

    // When / Then the invocation fails (Lambda retries, then dead-letters) and says so in EMF
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> invokeFile("spot-interruption-warning.json"))
        .isInstanceOf(RuntimeException.class);
    assertThat(metrics.total(DrainHandler.EVENTS_FAILED.name())).isEqualTo(1);
    assertThat(metrics.flushes.get()).isEqualTo(1);
  }

  @Test
  void shouldFindTheRepositorysSampleEvents() throws IOException {
    assertThat(drainEventFiles())
        .contains("spot-interruption-warning.json", "health-scheduled-change.json");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("drainEventFiles")
  void shouldLeaveTheClusterInTheStateEachSampleEventCallsFor(String file) throws IOException {
    // Given the demo fleet, When the sample goes through the handler as Lambda would deliver it
    JsonNode json = invokeFile(file);

    // Then the answer is a JSON array of outcome records
    assertThat(json.isArray()).as("handler output %s", json).isTrue();
    assertThat(json).allSatisfy(o -> assertThat(o.isObject()).isTrue());
    var outcomes = outcomes(json);
    assertThat(outcomes).isNotEmpty();
    assertThat(metrics.flushes.get()).isEqualTo(1);

    // and the cluster is where this event should leave it
    switch (file) {
      case "spot-interruption-warning.json" -> spotOnTrainingNode(outcomes);
      case "spot-interruption-warning-inference.json" -> spotOnInferenceNode(outcomes);
      case "spot-interruption-warning-other-cluster.json" -> instanceOfAnotherCluster(outcomes);
      // the second cluster of simulate's two-cluster stack; this handler serves the first only
      case "spot-interruption-warning-second-cluster.json",
          "rebalance-recommendation-node-group.json" ->
          instanceOfAnotherCluster(outcomes, "i-0d2e3f4a5b6c7d8e9");
      case "rebalance-recommendation.json" -> rebalance(outcomes);
      case "instance-state-change-stopping.json" -> stateChangeStopping(outcomes);
      case "health-scheduled-change.json" -> healthScheduledChange(outcomes);
      case "asg-lifecycle-terminate.json" -> lifecycleTerminate(outcomes);
      case "asg-lifecycle-launch.json" -> lifecycleLaunch(outcomes);
      case "capacity-reservation-interruption.json" -> reservationInterruption(outcomes);
      case "capacity-block-expiration-warning.json" -> capacityBlockExpiring(outcomes);
      default ->
          fail(
              "events/"
                  + file
                  + " has no end-state expectation in DrainHandlerEventsTest; add one");
    }
  }

  void spotOnTrainingNode(List<DrainOutcome> outcomes) {
    String nodeName = nodeOf(0);
    var o = single(outcomes);
    assertThat(o.status()).isEqualTo(Status.PARTIAL);
    assertThat(o.node()).isEqualTo(nodeName);
    assertThat(o.podsNotEvicted())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.pod()).isEqualTo("training/llm-finetune-0");
              assertThat(r.status()).isEqualTo(PodReport.Status.BLOCKED);
              assertThat(r.reason()).contains("training/llm-finetune");
            });
    assertThat(o.podsEvicted())
        .containsExactlyInAnyOrder(
            "training/data-loader-0",
            "training/data-loader-1",
            "training/trainer-ckpt-0",
            "training/trainer-silent-0");
    assertThat(o.deadlineMet()).isFalse();
    assertThat(time.now()).isEqualTo(o.deadline());
    // the training jobs that opted in: one checkpointed 20 s after it was told and was evicted
    // then, the other never reported and was evicted at the latest moment its grace still fit
    assertThat(o.checkpoints())
        .extracting(c -> c.pod())
        .containsExactly("training/trainer-ckpt-0", "training/trainer-silent-0");
    var ckpt = o.checkpoints().get(0);
    var silent = o.checkpoints().get(1);
    assertThat(ckpt.made()).isTrue();
    assertThat(ckpt.reported())
        .isEqualTo(
            ckpt.toldAt()
                .plusSeconds(20)
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .toString());
    assertThat(ckpt.evictedAt()).isAfterOrEqualTo(java.time.Instant.parse(ckpt.checkpointDone()));
    assertThat(silent.made()).isFalse();
    assertThat(silent.evictedAt()).isAfterOrEqualTo(silent.latestEviction());
    assertThat(silent.latestEviction()).isEqualTo(o.deadline().minusSeconds(32));
    var node = node(nodeName);
    assertThat(unschedulable(node)).isTrue();
    assertThat(taintedFor(node, "spot-interruption")).isTrue();
    assertThat(node.getMetadata().getLabels())
        .containsEntry(DrainPolicy.LB_EXCLUSION_LABEL, "true");
    assertThat(evictablePodsLeftOn(nodeName))
        .containsExactlyInAnyOrder("training/llm-finetune-0", "training/preprocess-job-x7k2");
    assertThat(notifier.sent)
        .singleElement()
        .satisfies(n -> assertThat(n.message()).contains("training/llm-finetune-0"));
  }

  void spotOnInferenceNode(List<DrainOutcome> outcomes) {
    String nodeName = nodeOf(2);
    var o = single(outcomes);
    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.node()).isEqualTo(nodeName);
    assertThat(o.podsEvicted())
        .containsExactlyInAnyOrder(
            "inference/vllm-llama-0",
            "inference/vllm-llama-1",
            "inference/gateway-20",
            "inference/gateway-21",
            "inference/gateway-22");
    assertThat(o.podsNotEvicted()).isEmpty();
    assertThat(o.deadlineMet()).isTrue();
    assertThat(evictablePodsLeftOn(nodeName)).isEmpty();
    assertThat(cluster.podsOn(nodeName)).hasSize(4).allMatch(p -> ownedBy(p, "DaemonSet"));
    assertThat(taintedFor(node(nodeName), "spot-interruption")).isTrue();
    assertThat(unschedulable(node(nodeName))).isTrue();
  }

  void reservationInterruption(List<DrainOutcome> outcomes) {
    String nodeName = nodeOf(4);
    var o = single(outcomes);
    assertThat(o.kind()).isEqualTo("capacity-reservation-interruption");
    assertThat(o.node()).isEqualTo(nodeName);
    assertThat(o.region()).isEqualTo("us-east-1");
    assertThat(o.status()).isEqualTo(Status.DRAINED);
    // the sample's instance-termination-time is two minutes after the event, less the margin
    assertThat(o.message()).doesNotContain("spot notice");
    assertThat(unschedulable(node(nodeName))).isTrue();
    assertThat(taintedFor(node(nodeName), "capacity-reservation-interruption")).isTrue();
    assertThat(requests("POST", "/eviction")).isNotEmpty();
  }

  void capacityBlockExpiring(List<DrainOutcome> outcomes) {
    String nodeName = nodeOf(1);
    var o = single(outcomes);
    assertThat(o.kind()).isEqualTo("capacity-block-expiring");
    assertThat(o.node()).isEqualTo(nodeName);
    assertThat(o.instanceId()).isEqualTo(DemoFleet.NODES.get(1).instanceId());
    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(unschedulable(node(nodeName))).isTrue();
    assertThat(taintedFor(node(nodeName), "capacity-block-expiring")).isTrue();
    assertThat(cluster.nodes().stream().filter(DrainHandlerEventsTest::unschedulable)).hasSize(1);
  }

  void instanceOfAnotherCluster(List<DrainOutcome> outcomes) {
    instanceOfAnotherCluster(outcomes, "i-0ffee00ddba11c0de");
  }

  void instanceOfAnotherCluster(List<DrainOutcome> outcomes, String instanceId) {
    var o = single(outcomes);
    assertThat(o.status()).isEqualTo(Status.NOT_IN_CLUSTER);
    assertThat(o.instanceId()).isEqualTo(instanceId);
    assertThat(o.node()).isNull();
    assertThat(requests("PATCH", "")).isEmpty();
    assertThat(requests("POST", "/eviction")).isEmpty();
    assertThat(cluster.nodes()).noneMatch(DrainHandlerEventsTest::unschedulable);
    assertThat(metrics.total("EventsNotInCluster")).isEqualTo(1);
    assertThat(publisher.published).isEmpty();
  }

  void rebalance(List<DrainOutcome> outcomes) {
    String nodeName = nodeOf(3);
    var o = single(outcomes);
    assertThat(o.status()).isEqualTo(Status.CORDONED);
    assertThat(o.node()).isEqualTo(nodeName);
    assertThat(o.podsEvicted()).isEmpty();
    assertThat(requests("POST", "/eviction")).isEmpty();
    assertThat(unschedulable(node(nodeName))).isTrue();
    assertThat(taintedFor(node(nodeName), "rebalance")).isTrue();
    assertThat(cluster.podsOn(nodeName)).hasSize(4 + 2 + 3);
  }

  void stateChangeStopping(List<DrainOutcome> outcomes) {
    String nodeName = nodeOf(5);
    var o = single(outcomes);
    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.node()).isEqualTo(nodeName);
    assertThat(o.podsEvicted()).hasSize(7);
    assertThat(evictablePodsLeftOn(nodeName)).isEmpty();
    var node = node(nodeName);
    assertThat(unschedulable(node)).isTrue();
    // the default actions for a state change cordon and drain without tainting
    assertThat(node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints())
        .noneMatch(t -> TAINT_KEY.equals(t.getKey()));
  }

  void healthScheduledChange(List<DrainOutcome> outcomes) {
    assertThat(outcomes)
        .extracting(DrainOutcome::instanceId)
        .containsExactlyInAnyOrder("i-0a1b2c3d4e5f60032", "i-0a1b2c3d4e5f60033");
    assertThat(outcomes)
        .extracting(DrainOutcome::node)
        .containsExactlyInAnyOrder(nodeOf(6), nodeOf(7));
    assertThat(outcomes).allSatisfy(o -> assertThat(o.status()).isEqualTo(Status.DRAINED));
    assertThat(outcomes).allSatisfy(o -> assertThat(o.podsEvicted()).hasSize(7));
    for (String nodeName : List.of(nodeOf(6), nodeOf(7))) {
      assertThat(evictablePodsLeftOn(nodeName)).as(nodeName).isEmpty();
      assertThat(unschedulable(node(nodeName))).as(nodeName).isTrue();
      assertThat(taintedFor(node(nodeName), "health-scheduled")).as(nodeName).isTrue();
    }
    // the static pod stays with its node
    assertThat(cluster.podsOn(nodeOf(7)))
        .anyMatch(p -> p.getMetadata().getName().startsWith("node-problem-detector-"));
  }

  void lifecycleTerminate(List<DrainOutcome> outcomes) {
    String nodeName = nodeOf(6);
    var o = single(outcomes);
    assertThat(o.status()).as(o.message()).isEqualTo(Status.DRAINED);
    assertThat(o.kind()).isEqualTo("asg-terminate");
    assertThat(o.node()).isEqualTo(nodeName);
    assertThat(o.podsEvicted()).hasSize(7);
    assertThat(evictablePodsLeftOn(nodeName)).isEmpty();
    assertThat(taintedFor(node(nodeName), "asg-terminate")).isTrue();
    assertThat(unschedulable(node(nodeName))).isTrue();
    assertThat(o.lifecycle().result()).isEqualTo("CONTINUE");
    // the simulated Auto Scaling group recorded the completion of this very action
    assertThat(asg.completions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.instanceId()).isEqualTo("i-0a1b2c3d4e5f60032");
              assertThat(c.hook()).isEqualTo("gpufleet-drain");
              assertThat(c.result()).isEqualTo("CONTINUE");
              assertThat(c.byTimeout()).isFalse();
            });
    assertThat(stub.calls("CompleteLifecycleAction"))
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.param("LifecycleActionToken"))
                    .contains("8c2f5d3a-6e1b-4a7c-9d0e-1f2a3b4c5d6e"));
    assertThat(asg.heartbeats()).isNotEmpty();
  }

  void lifecycleLaunch(List<DrainOutcome> outcomes) {
    var o = single(outcomes);
    assertThat(o.status()).as(o.message()).isEqualTo(Status.HOOK_COMPLETED);
    assertThat(o.node()).isEqualTo(nodeOf(7));
    assertThat(asg.completions())
        .singleElement()
        .satisfies(c -> assertThat(c.result()).isEqualTo("CONTINUE"));
    assertThat(requests("PATCH", "")).isEmpty();
    assertThat(requests("POST", "/eviction")).isEmpty();
  }

  @Test
  void shouldAcknowledgeAutoScalingsDirectSqsMessagesThroughTheSqsEntry() throws IOException {
    // Given an SQS batch: Auto Scaling's test notification and a terminate hook sent straight to
    // the queue (no EventBridge envelope; shapes from the EC2 Auto Scaling user guide)
    String token = "4f3e2d1c-0b9a-4887-a665-544332211009";
    asg.hold(
        "eks-ng-gpu-dra",
        "gpufleet-drain",
        "i-0a1b2c3d4e5f60031",
        "autoscaling:EC2_INSTANCE_TERMINATING",
        java.time.Duration.ofMinutes(5),
        "ABANDON",
        token);
    var test =
        "{\"AccountId\":\"123456789012\",\"RequestId\":\"4e6156f4-a9e2-4bda-a7fd-33f2ae528958\","
            + "\"AutoScalingGroupName\":\"eks-ng-gpu-dra\",\"Service\":\"AWS Auto Scaling\","
            + "\"Event\":\"autoscaling:TEST_NOTIFICATION\",\"Time\":\"2026-11-29T03:00:36.414Z\"}";
    var hook =
        "{\"Origin\":\"AutoScalingGroup\",\"LifecycleHookName\":\"gpufleet-drain\","
            + "\"Destination\":\"EC2\",\"AccountId\":\"123456789012\","
            + "\"RequestId\":\"63e0c8b1-3c1e-4f13-8b53-4a2f1e7e2a11\","
            + "\"LifecycleTransition\":\"autoscaling:EC2_INSTANCE_TERMINATING\","
            + "\"AutoScalingGroupName\":\"eks-ng-gpu-dra\",\"Service\":\"AWS Auto Scaling\","
            + "\"Time\":\""
            + time.now()
            + "\",\"EC2InstanceId\":\"i-0a1b2c3d4e5f60031\",\"LifecycleActionToken\":\""
            + token
            + "\"}";
    var batch = Json.MAPPER.createObjectNode();
    var records = batch.putArray("Records");
    for (var body : List.of(test, hook)) {
      var r = records.addObject();
      r.put("messageId", "m-" + records.size());
      r.put("body", body);
      r.put("eventSource", "aws:sqs");
      r.put("awsRegion", "us-east-1");
    }

    // When the batch is delivered as the event source mapping delivers it
    JsonNode answer = invoke(Json.MAPPER.writeValueAsBytes(batch));

    // Then every record succeeded, the test notification changed nothing, and the hook drained
    assertThat(answer.path("batchItemFailures").isArray()).isTrue();
    assertThat(answer.path("batchItemFailures")).isEmpty();
    assertThat(metrics.total("EventsNoAction")).isEqualTo(1);
    assertThat(metrics.total("EventsDrained")).isEqualTo(1);
    assertThat(evictablePodsLeftOn(nodeOf(5))).isEmpty();
    assertThat(asg.completions())
        .singleElement()
        .satisfies(c -> assertThat(c.result()).isEqualTo("CONTINUE"));
  }

  static DrainOutcome single(List<DrainOutcome> outcomes) {
    assertThat(outcomes).hasSize(1);
    return outcomes.get(0);
  }

  @Test
  void shouldAnswerWithTheDocumentedOutcomeFields() throws IOException {
    // When the training-node warning (which leaves one pod behind) goes through the handler
    JsonNode json = invokeFile("spot-interruption-warning.json");

    // Then its outcome carries every documented field
    assertThat(json.isArray()).isTrue();
    assertThat(json).hasSize(1);
    JsonNode o = json.get(0);
    assertThat(o.path("eventId").asText()).isEqualTo("1e5527d7-bb36-4607-3370-4164db56a40e");
    assertThat(o.path("kind").asText()).isEqualTo("spot-interruption");
    assertThat(o.path("instanceId").asText()).isEqualTo("i-0a1b2c3d4e5f60011");
    assertThat(o.path("node").asText()).isEqualTo(nodeOf(0));
    assertThat(o.path("status").asText()).isEqualTo("PARTIAL");
    assertThat(o.path("podsEvicted").isArray()).isTrue();
    assertThat(o.path("podsEvicted")).hasSize(4);
    // the timelines of the two training jobs that opted in to checkpointing
    assertThat(o.path("checkpoints")).hasSize(2);
    for (JsonNode c : o.path("checkpoints")) {
      for (String field : List.of("pod", "wants", "toldAt", "checkpointDone", "evictedAt")) {
        assertThat(c.has(field)).as("checkpoints[].%s", field).isTrue();
      }
    }
    assertThat(o.path("checkpoints").get(1).path("checkpointDone").asText())
        .isEqualTo("not reported");
    JsonNode notEvicted = o.path("podsNotEvicted");
    assertThat(notEvicted.isArray()).isTrue();
    assertThat(notEvicted).hasSize(1);
    assertThat(notEvicted.get(0).path("pod").asText()).isEqualTo("training/llm-finetune-0");
    assertThat(notEvicted.get(0).path("status").asText()).isEqualTo("BLOCKED");
    assertThat(notEvicted.get(0).path("reason").asText()).isNotBlank();
    JsonNode timings = o.path("timings");
    assertThat(timings.isObject()).isTrue();
    for (String field : List.of("cordonedMs", "evictionsIssuedMs", "allGoneMs")) {
      assertThat(timings.has(field)).as("timings.%s", field).isTrue();
    }
    // requests take no virtual time: cordoned and every eviction answered at receipt
    assertThat(timings.path("cordonedMs").isIntegralNumber()).isTrue();
    assertThat(timings.path("cordonedMs").asLong()).isZero();
    assertThat(timings.path("evictionsIssuedMs").isIntegralNumber()).isTrue();
    assertThat(timings.path("evictionsIssuedMs").asLong()).isZero();
    // the evicted pods went long before, but the drain waited for all evictions (the blocked
    // pod's retries) before it looked: at the deadline, 110 s after receipt
    assertThat(timings.path("allGoneMs").asLong()).isEqualTo(110_000);
    assertThat(o.path("deadline").isTextual()).isTrue();
    // the blocked pod was retried up to the deadline, and that is where the drain stopped
    assertThat(Instant.parse(o.path("deadline").asText())).isEqualTo(time.now());
    assertThat(o.path("deadlineMet").isBoolean()).isTrue();
    assertThat(o.path("deadlineMet").asBoolean()).isFalse();
  }

  @Test
  void shouldSetTheSpotDeadlineTwoMinutesAfterTheEventLessTheMargin() throws IOException {
    // Given a spot warning for the training node, rebased to now
    byte[] payload =
        rebase(read(eventsDir().resolve("spot-interruption-warning.json")), time.now());
    Instant eventTime = Instant.parse(Json.MAPPER.readTree(payload).path("time").asText());

    // When
    var o = single(outcomes(invoke(payload)));

    // Then
    assertThat(o.deadline()).isEqualTo(eventTime.plusSeconds(110));
  }

  @Test
  void shouldTreatASecondDeliveryOfTheSameEventAsADuplicate() throws IOException {
    // Given the rebalance recommendation was handled once
    byte[] payload = rebase(read(eventsDir().resolve("rebalance-recommendation.json")), time.now());
    var first = single(outcomes(invoke(payload)));

    // When EventBridge delivers it again
    var second = single(outcomes(invoke(payload)));

    // Then
    assertThat(first.status()).isEqualTo(Status.CORDONED);
    assertThat(second.status()).isEqualTo(Status.DUPLICATE);
    assertThat(requests("PATCH", "/api/v1/nodes/" + nodeOf(3))).hasSize(1);
    assertThat(publisher.published).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "{not json",
        "[]",
        "\"just a string\"",
        "{\"version\":\"0\",\"id\":\"bad-1\",\"detail-type\":\"EC2 Spot Instance Interruption"
            + " Warning\",\"source\":\"aws.ec2\",\"time\":\"2026-11-29T03:02:11Z\","
            + "\"detail\":{\"instance-id\":\"not-an-instance\",\"instance-action\":\"terminate\"}}",
        "{\"version\":\"0\",\"id\":\"bad-2\",\"detail-type\":\"EC2 Spot Instance Interruption"
            + " Warning\",\"source\":\"aws.ec2\",\"time\":\"yesterday\",\"detail\":{}}",
      })
  void shouldAcknowledgeAMalformedPayloadWithOneRejectedOutcome(String payload) {
    // When
    JsonNode[] answer = new JsonNode[1];
    assertThatCode(() -> answer[0] = invoke(payload.getBytes(StandardCharsets.UTF_8)))
        .doesNotThrowAnyException();

    // Then
    JsonNode json = answer[0];
    assertThat(json.isArray()).isTrue();
    assertThat(json).hasSize(1);
    var o = outcomes(json).get(0);
    assertThat(o.status()).isEqualTo(Status.REJECTED);
    assertThat(o.message()).isNotBlank();
    assertThat(o.cluster()).isEqualTo(DemoFleet.CLUSTER);
    assertThat(cluster.requests()).isEmpty();
    assertThat(metrics.total("EventsRejected")).isEqualTo(1);
    assertThat(metrics.flushes.get()).isEqualTo(1);
  }

  @Test
  void shouldKeepTheEventIdOfARejectedEventWhoseEnvelopeWasReadable() throws IOException {
    String payload =
        "{\"version\":\"0\",\"id\":\"bad-1\",\"detail-type\":\"EC2 Spot Instance Interruption"
            + " Warning\",\"source\":\"aws.ec2\",\"time\":\"2026-11-29T03:02:11Z\","
            + "\"detail\":{\"instance-id\":\"not-an-instance\",\"instance-action\":\"terminate\"}}";

    var o = single(outcomes(invoke(payload.getBytes(StandardCharsets.UTF_8))));

    assertThat(o.eventId()).isEqualTo("bad-1");
    assertThat(o.message()).contains("not-an-instance");
  }
}

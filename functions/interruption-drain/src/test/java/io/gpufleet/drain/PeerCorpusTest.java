package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.type.TypeFactory;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.wiring.DrainHandler;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The peers' event fixtures (NTH's and Karpenter's test suites), AWS's documented samples and
 * payloads addressed to no function, from {@code events/corpus/corpus.json}: each goes through
 * {@link DrainHandler#handleRequest} as Lambda delivers it, once directly (an EventBridge target)
 * and once as the body of an SQS message (EventBridge → SQS → Lambda), each time on a fresh
 * simulated cluster holding a node for every instance the peers' tests had one for. The outcome
 * must be the one the manifest gives for the peer's expectation, and the same both ways.
 */
class PeerCorpusTest {
  record Fixture(String file, String expected, String kind, String hookResult) {
    @Override
    public String toString() {
      return file;
    }
  }

  static JsonNode manifest() {
    try {
      return Json.MAPPER.readTree(Files.readAllBytes(corpusDir().resolve("corpus.json")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path corpusDir() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path corpus = dir.resolve("events/corpus");
      if (Files.isDirectory(corpus) && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return corpus;
      }
    }
    throw new IllegalStateException("no events/corpus above " + Path.of("").toAbsolutePath());
  }

  static List<Fixture> fixtures() {
    var out = new ArrayList<Fixture>();
    for (JsonNode f : manifest().path("fixtures")) {
      out.add(
          new Fixture(
              f.path("file").asText(),
              f.path("drain").asText(),
              f.path("kind").asText(null),
              f.path("hookResult").asText(null)));
    }
    return out;
  }

  static Stream<Arguments> fixturesBothWays() {
    return fixtures().stream()
        .flatMap(f -> Stream.of(Arguments.of(f, "direct"), Arguments.of(f, "sqs")));
  }

  static io.gpufleet.sim.aws.AwsStubServer stub;

  @org.junit.jupiter.api.BeforeAll
  static void startAutoScaling() {
    stub = io.gpufleet.sim.aws.AwsStubServer.start();
  }

  @org.junit.jupiter.api.AfterAll
  static void stopAutoScaling() {
    stub.close();
  }

  /**
   * One fresh simulated cluster, Auto Scaling group and a handler wired to them, as one Lambda
   * environment.
   */
  static final class Run implements AutoCloseable {
    static final Duration TERMINATION = Duration.ofSeconds(2);

    final VirtualTime time;
    final SimCluster cluster;
    final software.amazon.awssdk.services.autoscaling.AutoScalingClient autoScaling;
    final io.fabric8.kubernetes.client.KubernetesClient client;
    final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
    final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
    final DrainHandler handler;
    final io.gpufleet.sim.aws.SimAutoScaling asg;

    Run() {
      JsonNode setup = manifest().path("cluster");
      time = new VirtualTime(Instant.parse(setup.path("now").asText()));
      cluster = SimCluster.start(time);
      cluster.setTerminationTime(p -> TERMINATION);
      client = cluster.newClient();
      autoScaling = DrainFixture.autoScaling(stub, time);
      int n = 0;
      for (JsonNode id : setup.path("instances")) {
        String node = "node-" + (n++);
        cluster.create(
            SimCluster.gpuNode(
                node, id.asText(), "us-east-1a", "p5.48xlarge", "on-demand", "gpu", null, 8));
        for (int i = 0; i < 2; i++) {
          cluster.create(
              SimCluster.runningPod(
                  "apps",
                  node + "-web-" + i,
                  node,
                  "ReplicaSet",
                  "web",
                  Map.of("app", "web"),
                  5,
                  0));
        }
      }
      setup
          .path("capacityBlocks")
          .properties()
          .forEach(
              e ->
                  e.getValue()
                      .forEach(
                          id ->
                              cluster.label(
                                  nodeOf(id.asText()),
                                  DrainClusterPort.CAPACITY_RESERVATION_LABEL,
                                  e.getKey())));
      var service =
          DrainWiring.service(
              client,
              DrainWiring.Parts.of(DrainSettings.defaults("corpus"))
                  .reportingTo(metrics, publisher, new Recorders.RecordingNotifier())
                  .timedBy(time)
                  .withLifecycle(
                      new io.gpufleet.drain.aws.AutoScalingLifecycleAdapter(autoScaling),
                      (body, delay) -> {}));
      stub.reset();
      asg = new io.gpufleet.sim.aws.SimAutoScaling(stub, time);
      handler = new DrainHandler(service, metrics, time.clock());
    }

    /**
     * Holds the lifecycle action a fixture names (EventBridge {@code detail} or Auto Scaling's
     * direct message), as the group would while its hook waits; test notifications hold nothing.
     */
    void holdLifecycleAction(byte[] payload) {
      JsonNode root;
      try {
        root = Json.MAPPER.readTree(payload);
      } catch (IOException | RuntimeException e) {
        return;
      }
      if (root == null || !root.isObject()) {
        return;
      }
      JsonNode d = root.has("detail") ? root.path("detail") : root;
      String transition = d.path("LifecycleTransition").asText();
      if (!d.hasNonNull("LifecycleActionToken") || !transition.contains("EC2_INSTANCE_")) {
        return;
      }
      asg.hold(
          d.path("AutoScalingGroupName").asText(),
          d.path("LifecycleHookName").asText(),
          d.path("EC2InstanceId").asText(),
          transition,
          Duration.ofMinutes(15),
          "ABANDON",
          d.path("LifecycleActionToken").asText());
    }

    String nodeOf(String instanceId) {
      return cluster.nodes().stream()
          .filter(node -> node.getSpec().getProviderID().endsWith("/" + instanceId))
          .map(node -> node.getMetadata().getName())
          .findFirst()
          .orElseThrow();
    }

    byte[] invoke(byte[] payload) {
      var out = new ByteArrayOutputStream();
      try {
        handler.handleRequest(
            new ByteArrayInputStream(payload),
            out,
            new LocalContext("interruption-drain", 170_000));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return out.toByteArray();
    }

    /** Statuses counted by the reporter (EventsDrained, EventsRejected, ...). */
    /**
     * What a drain fixture must end with: DRAINED, or PARTIAL when its own deadline came before the
     * pods' {@link #TERMINATION} after its arrival at the manifest's "now" (counted by status).
     */
    Map<String, Long> expectedDrainCounts() {
      var counts = new TreeMap<String, Long>();
      Instant arrival = Instant.parse(manifest().path("cluster").path("now").asText());
      for (var p : publisher.published) {
        var o = (DrainOutcome) p.detail();
        var status =
            o.deadline().isBefore(arrival.plus(TERMINATION)) ? Status.PARTIAL : Status.DRAINED;
        counts.merge(status.name(), 1L, Long::sum);
      }
      return counts;
    }

    Map<String, Long> statusCounts() {
      var counts = new TreeMap<String, Long>();
      for (Status s : Status.values()) {
        long n = (long) metrics.total("Events" + camel(s.name()));
        if (n > 0) {
          counts.put(s.name(), n);
        }
      }
      return counts;
    }

    List<String> cordonedNodes() {
      return cluster.nodes().stream()
          .filter(node -> Boolean.TRUE.equals(node.getSpec().getUnschedulable()))
          .map(node -> node.getMetadata().getName())
          .sorted()
          .toList();
    }

    long evictions() {
      return cluster.requests().stream().filter(r -> r.path().contains("/eviction")).count();
    }

    @Override
    public void close() {
      autoScaling.close();
      client.close();
      cluster.close();
    }
  }

  static String camel(String enumName) {
    var sb = new StringBuilder();
    for (String p : enumName.toLowerCase(java.util.Locale.ROOT).split("_")) {
      sb.append(Character.toUpperCase(p.charAt(0))).append(p.substring(1));
    }
    return sb.toString();
  }

  static byte[] sqsEvent(byte[] body) {
    var record =
        Map.of(
            "messageId", "8f4c1e2a-5b6d-4c7e-9f80-1a2b3c4d5e6f",
            "receiptHandle", "AQEBexample",
            "body", new String(body, StandardCharsets.UTF_8),
            "attributes", Map.of("ApproximateReceiveCount", "1"),
            "messageAttributes", Map.of(),
            "eventSource", "aws:sqs",
            "eventSourceARN", "arn:aws:sqs:us-east-1:123456789012:gpufleet-drain-events",
            "awsRegion", "us-east-1");
    return Json.write(Map.of("Records", List.of(record))).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] read(Fixture f) {
    try {
      return Files.readAllBytes(corpusDir().resolve(f.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void shouldHoldEveryFileOfTheCorpusDirectoryInTheManifest() throws IOException {
    var listed = fixtures().stream().map(Fixture::file).sorted().toList();
    List<String> onDisk;
    try (var files = Files.walk(corpusDir())) {
      onDisk =
          files
              .filter(Files::isRegularFile)
              .map(p -> corpusDir().relativize(p).toString())
              .filter(p -> !p.equals("corpus.json") && !p.endsWith(".md"))
              .sorted()
              .toList();
    }
    assertThat(listed).containsExactlyElementsOf(onDisk);
    assertThat(manifest().path("sources").path("nth").asText()).contains("@62a8761");
    assertThat(manifest().path("sources").path("karpenter").asText()).contains("@1d92708");
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("fixturesBothWays")
  void shouldGiveEachFixtureTheOutcomeItsPeerExpects(Fixture fixture, String delivery) {
    byte[] payload = read(fixture);
    try (var run = new Run()) {
      run.holdLifecycleAction(payload);
      // When the fixture arrives directly or as the body of an SQS message
      List<DrainOutcome> outcomes = null;
      if (delivery.equals("direct")) {
        byte[] answer = run.invoke(payload);
        if (read(answer).isArray()) {
          outcomes = outcomes(answer);
        } else {
          // the fixture is itself an SQS event: the answer is the partial batch response
          assertThat(read(answer).path("batchItemFailures")).isEmpty();
        }
      } else {
        JsonNode response = read(run.invoke(sqsEvent(payload)));
        // Then a handled or rejected message is never retried: the partial response is empty
        assertThat(response.path("batchItemFailures").isArray()).as("%s", response).isTrue();
        assertThat(response.path("batchItemFailures")).isEmpty();
      }

      // Then the outcome is the one the peer's test expects (or the documented difference)
      var counts = run.statusCounts();
      switch (fixture.expected()) {
        case "drain" -> {
          assertThat(counts).as("statuses").isNotEmpty().isEqualTo(run.expectedDrainCounts());
          assertThat(run.cordonedNodes()).isNotEmpty();
          assertThat(run.evictions()).isEqualTo(2L * run.cordonedNodes().size());
        }
        case "cordon" -> {
          assertThat(counts).containsOnlyKeys("CORDONED");
          assertThat(run.cordonedNodes()).hasSize(1);
          assertThat(run.evictions()).isZero();
        }
        default -> {
          assertThat(counts).containsOnlyKeys(fixture.expected());
          assertThat(run.cordonedNodes()).isEmpty();
          assertThat(run.evictions()).isZero();
        }
      }
      // Then a lifecycle action is completed as the peer completes it (NTH: CONTINUE), and
      // nothing is sent to Auto Scaling for any other fixture (a test notification included)
      if (fixture.hookResult() != null) {
        assertThat(run.asg.completions())
            .singleElement()
            .satisfies(
                c -> {
                  assertThat(c.result()).isEqualTo(fixture.hookResult());
                  assertThat(c.byTimeout()).isFalse();
                });
      } else {
        assertThat(stub.calls("CompleteLifecycleAction")).isEmpty();
      }
      if (outcomes != null) {
        assertThat(outcomes).isNotEmpty();
        if (fixture.kind() != null) {
          assertThat(outcomes).allSatisfy(o -> assertThat(o.kind()).isEqualTo(fixture.kind()));
        }
        assertThat(outcomes)
            .allSatisfy(
                o -> {
                  if (o.status() != Status.REJECTED && hasRegion(payload)) {
                    assertThat(o.region()).isNotBlank();
                  }
                  if (o.message() != null) {
                    assertThat(o.message()).hasSizeLessThan(1_000);
                  }
                });
      }
    }
  }

  static boolean hasRegion(byte[] payload) {
    try {
      return Json.MAPPER.readTree(payload).hasNonNull("region");
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @Test
  void shouldDrainNthsMinimalLifecycleBodyAndSayTheActionCannotBeCompleted() {
    try (var run = new Run()) {
      var outcomes =
          outcomes(
              run.invoke(
                  read(new Fixture("nth-v2/asg-lifecycle-v2-terminating.json", null, null, null))));

      assertThat(outcomes)
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.status()).isEqualTo(Status.DRAINED);
                assertThat(o.message()).endsWith("; lifecycle action not completed: no group name");
                assertThat(o.eventId())
                    .startsWith("no-id:aws.autoscaling/EC2 Instance-terminate Lifecycle Action/");
              });
      assertThat(stub.calls("CompleteLifecycleAction")).isEmpty();
      assertThat(stub.calls("RecordLifecycleActionHeartbeat")).isEmpty();
    }
  }

  @Test
  void shouldDrainACapacityBlocksNodesOnlyOnTheWarningNotOnDelivery() {
    try (var run = new Run()) {
      run.invoke(read(new Fixture("aws-docs/capacity-block-delivered.json", null, null, null)));
      assertThat(run.cordonedNodes()).isEmpty();

      var outcomes =
          outcomes(
              run.invoke(
                  read(
                      new Fixture(
                          "aws-docs/capacity-block-expiration-warning.json", null, null, null))));

      assertThat(outcomes)
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.instanceId()).isEqualTo("i-0a1b2c3d4e5f60012");
                assertThat(o.status()).isEqualTo(Status.DRAINED);
              });
    }
  }

  static List<DrainOutcome> outcomes(byte[] json) {
    try {
      return Json.MAPPER.readValue(
          json,
          TypeFactory.defaultInstance().constructCollectionType(List.class, DrainOutcome.class));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode read(byte[] json) {
    try {
      return Json.MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

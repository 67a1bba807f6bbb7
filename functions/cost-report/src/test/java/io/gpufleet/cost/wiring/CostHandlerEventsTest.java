package io.gpufleet.cost.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.store.MemoryBlobStore;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporting;
import io.gpufleet.cost.CostRequests;
import io.gpufleet.cost.CostSettings;
import io.gpufleet.cost.Fixtures;
import io.gpufleet.cost.k8s.CostClusterAdapter;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
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
import java.time.temporal.ChronoUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Handler tier: every payload in events/cost-report goes through the handler the way Lambda invokes
 * it, over the simulated cluster (demo fleet), fake EC2 and the static price table.
 */
class CostHandlerEventsTest {
  SimCluster cluster;
  KubernetesClient client;
  final MemoryBlobStore store = new MemoryBlobStore();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  CostHandler handler;

  @BeforeEach
  void start() {
    cluster = SimCluster.start(SimTime.realTime());
    client = cluster.newClient();
    DemoFleet.populate(cluster);
    var ec2 = new Fixtures.FakeEc2();
    for (var n : DemoFleet.NODES) {
      ec2.instances.add(
          new io.gpufleet.cost.model.Ec2Instance(
              n.instanceId(),
              n.instanceType(),
              n.zone(),
              "spot".equals(n.capacityType()) ? Lifecycle.SPOT : Lifecycle.ON_DEMAND,
              Instant.now().minus(Duration.ofDays(3)),
              "running",
              null,
              n.nodePool(),
              n.nodeGroup()));
    }
    var reporter =
        CostReporting.reporter(metrics, publisher, io.gpufleet.core.outcome.NotifierPort.NONE);
    var service =
        new CostReportService(
            CostSettings.defaults(DemoFleet.CLUSTER),
            "us-east-1",
            new CostClusterAdapter(client, "team"),
            ec2,
            new Fixtures.FakeSpot(),
            new StaticPrices(),
            store,
            reporter,
            Clock.systemUTC());
    handler = new CostHandler(service, metrics, reporter, DemoFleet.CLUSTER);
  }

  @AfterEach
  void stop() {
    client.close();
    cluster.close();
  }

  static Path eventsDir() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path events = dir.resolve("events/cost-report");
      if (Files.isDirectory(events) && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return events;
      }
    }
    throw new IllegalStateException("no events/cost-report above " + Path.of("").toAbsolutePath());
  }

  static Stream<String> payloads() throws IOException {
    try (var files = Files.list(eventsDir())) {
      var names =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".json"))
              .sorted()
              .toList();
      assertThat(names).isNotEmpty();
      return names.stream();
    }
  }

  /** The payload with its scheduled time moved to this hour, as the schedule would send today. */
  static byte[] rebased(String file) throws IOException {
    var node = (ObjectNode) Json.MAPPER.readTree(Files.readAllBytes(eventsDir().resolve(file)));
    if (node.has("scheduledTime")) {
      node.put("scheduledTime", Instant.now().truncatedTo(ChronoUnit.HOURS).toString());
    }
    return Json.MAPPER.writeValueAsBytes(node);
  }

  CostOutcome invoke(byte[] payload) throws IOException {
    var out = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(payload), out, new LocalContext("cost-report", 880_000));
    return Json.MAPPER.readValue(out.toByteArray(), CostOutcome.class);
  }

  @ParameterizedTest
  @MethodSource("payloads")
  void everySamplePayloadIsHandled(String file) throws Exception {
    var payload = rebased(file);
    var request = CostRequests.decode(payload);

    var o = invoke(payload);

    if (request.snapshotOnly()) {
      assertThat(o.status()).isEqualTo(CostOutcome.Status.SNAPSHOT);
      assertThat(o.nodes()).isEqualTo(DemoFleet.NODES.size());
      assertThat(store.keys()).containsExactly("inventory/sim-gpu-cluster/snapshot.json");
    } else {
      assertThat(o.status()).isEqualTo(CostOutcome.Status.REPORTED);
      assertThat(o.nodes()).isEqualTo(DemoFleet.NODES.size());
      assertThat(o.totalCost().signum()).isPositive();
      assertThat(o.outputs()).containsOnlyKeys("json", "csv", "html");
      assertThat(publisher.published).hasSize(1);
    }
    assertThat(metrics.flushes.get()).isEqualTo(1);
  }

  @Test
  void aRepeatedDeliveryOfOneScheduledRunWritesTheSameReport() throws Exception {
    var payload = rebased("scheduled-daily-report.json");

    var first = invoke(payload);
    var keysAfterFirst = store.keys();
    var second = invoke(payload);

    assertThat(second.outputs()).isEqualTo(first.outputs());
    assertThat(store.keys()).isEqualTo(keysAfterFirst);
    assertThat(first.outputs().get("html")).contains("reports/sim-gpu-cluster/last-day_");
  }

  /**
   * The event corpus (peers' fixtures, AWS samples, stray payloads) and the other functions'
   * samples.
   */
  static Stream<String> notAddressedToTheCostReport() throws IOException {
    Path root = eventsDir().getParent();
    var names = new java.util.ArrayList<String>();
    try (var files = Files.walk(root.resolve("corpus"))) {
      files
          .filter(Files::isRegularFile)
          .filter(p -> !p.toString().endsWith(".md") && !p.endsWith("corpus.json"))
          .forEach(p -> names.add(root.relativize(p).toString()));
    }
    try (var files = Files.list(root)) {
      files
          .filter(p -> p.toString().endsWith(".json"))
          .forEach(p -> names.add(root.relativize(p).toString()));
    }
    assertThat(names).hasSizeGreaterThan(40);
    return names.stream().sorted();
  }

  @ParameterizedTest
  @MethodSource("notAddressedToTheCostReport")
  void shouldRejectEveryPayloadNotAddressedToIt(String file) throws Exception {
    // Given a payload meant for another function, or for none
    byte[] payload = Files.readAllBytes(eventsDir().getParent().resolve(file));

    // When it reaches the cost report
    var o = invoke(payload);

    // Then it is rejected with a bounded reason, and nothing is read, written or published
    assertThat(o.status()).as(o.message()).isEqualTo(CostOutcome.Status.REJECTED);
    assertThat(o.message()).hasSizeLessThan(300);
    assertThat(store.keys()).isEmpty();
    assertThat(publisher.published).isEmpty();
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {
        "{\"detail\":{\"window\":\"mtd\"}}",
        "{\"action\":\"report\",\"window\":\"mtd\",\"dryRun\":true}",
        "{\"window\":7}",
        "{\"window\":\"mtd\"}{\"window\":\"mtd\"}",
        "{\"window\":\"mtd\"} x"
      })
  void shouldRejectWhatIsNotADocumentedRequest(String payload) throws Exception {
    var o = invoke(payload.getBytes(StandardCharsets.UTF_8));

    assertThat(o.status()).isEqualTo(CostOutcome.Status.REJECTED);
    assertThat(store.keys()).isEmpty();
  }

  @Test
  void aMalformedPayloadIsRejectedWithoutWritingAnything() throws Exception {
    var o = invoke("{\"action\":\"delete-everything\"}".getBytes(StandardCharsets.UTF_8));

    assertThat(o.status()).isEqualTo(CostOutcome.Status.REJECTED);
    assertThat(o.message()).contains("'delete-everything'");
    assertThat(store.keys()).isEmpty();
    assertThat(invoke("not json".getBytes(StandardCharsets.UTF_8)).message()).contains("not JSON");
  }
}

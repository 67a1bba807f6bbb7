package io.gpufleet.preflight.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.preflight.DedupeStorePort;
import io.gpufleet.preflight.PlanLoaderPort;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.ReportStorePort;
import io.gpufleet.preflight.aws.RegionalClients;
import io.gpufleet.preflight.k8s.NodePoolAdapter;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Handler tier: the repository's events/ samples for this function (quota alarms, the daily
 * schedule's payload) go through {@link PreflightHandler#handleRequest} as Lambda calls it, against
 * the simulated account (real SDK clients → AWS stub) and the simulated cluster's NodePools.
 */
class PreflightHandlerEventsTest {
  static final Instant NOW = Instant.parse("2026-11-30T05:45:00Z");
  AwsStubServer stub;
  SimCapacityAccount account;
  RegionalClients clients;
  SimCluster cluster;
  KubernetesClient kube;
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final List<PreflightReport> saved = new ArrayList<>();
  PreflightHandler handler;

  @BeforeEach
  void start() {
    stub = AwsStubServer.start();
    account =
        new SimCapacityAccount(stub)
            .now(NOW)
            .install()
            .seedDemo(
                List.of(
                    "us-east-1",
                    "us-east-2",
                    "us-west-2",
                    "eu-west-1",
                    "eu-central-1",
                    "ap-northeast-1"));
    clients =
        new RegionalClients(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSIM", "secret")),
            Optional.of(stub.endpoint()));
    cluster = SimCluster.start(SimTime.realTime());
    DemoFleet.populateNodePools(cluster);
    kube = cluster.newClient();
    var clock = Clock.fixed(NOW, ZoneOffset.UTC);
    var settings =
        PreflightSettings.defaults()
            .withIncrease(true, 1536)
            .withPlanText(
                readUnchecked(events().resolve("preflight-daily-schedule.json"))
                    .get("plan")
                    .toString());
    var service =
        PreflightWiring.service(clients, "us-east-1", OnDemandPrices.none(), settings, clock);
    ReportStorePort store =
        r -> {
          saved.add(r);
          return Optional.of("s3://results/preflight/reports/" + saved.size() + ".json");
        };
    var function =
        PreflightWiring.function(
            service,
            DedupeStorePort.inMemory(100),
            store,
            PlanLoaderPort.NONE,
            new NodePoolAdapter(kube),
            metrics,
            publisher,
            notifier,
            "us-east-1");
    handler = new PreflightHandler(function, metrics);
  }

  @AfterEach
  void stop() {
    kube.close();
    cluster.close();
    clients.close();
    stub.close();
  }

  @Test
  void shouldHandleTheQuotaAlarmOnceNotifyWithContextAndRequestOneCappedIncrease()
      throws Exception {
    byte[] event = Files.readAllBytes(events().resolve("quota-alarm-p-spot.json"));

    JsonNode first = invoke(event);
    JsonNode again = invoke(event);

    assertThat(first.path("status").asText()).isEqualTo("HANDLED");
    var alarm = first.path("alarm");
    assertThat(alarm.path("quota").asText()).isEqualTo("P Spot");
    assertThat(alarm.path("usageVcpu").asDouble()).isEqualTo(336);
    assertThat(alarm.path("quotaVcpu").asDouble()).isEqualTo(384);
    assertThat(alarm.path("plansAtRisk").toString()).contains("llm-training-q1");
    assertThat(alarm.path("poolsAtRisk").toString())
        .contains("gpu-training")
        .contains("gpu-inference");
    assertThat(alarm.path("increase").asText()).startsWith("requested 1,104 vCPU");
    assertThat(again.path("status").asText()).isEqualTo("ALREADY_HANDLED");
    assertThat(notifier.sent).hasSize(1);
    assertThat(account.requests())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.quotaCode()).isEqualTo("L-7212CCBC");
              assertThat(r.desired()).isLessThanOrEqualTo(1536);
            });
    assertThat(stub.calls("ServiceQuotasV20190624.RequestServiceQuotaIncrease")).hasSize(1);
  }

  @Test
  void shouldIgnoreTheAlarmReturningToOk() throws Exception {
    JsonNode out = invoke(Files.readAllBytes(events().resolve("quota-alarm-g-ondemand-ok.json")));

    assertThat(out.path("status").asText()).isEqualTo("IGNORED");
    assertThat(notifier.sent).isEmpty();
    assertThat(stub.calls()).isEmpty();
  }

  @Test
  void shouldRunTheScheduledPlanOnceAndReportEverywhere() throws Exception {
    byte[] schedule = Files.readAllBytes(events().resolve("preflight-daily-schedule.json"));

    JsonNode out = invoke(schedule);
    JsonNode retry = invoke(schedule);

    assertThat(out.path("status").asText()).isEqualTo("REPORTED");
    assertThat(out.path("reportUri").asText()).isEqualTo("s3://results/preflight/reports/1.json");
    var regions = out.path("report").path("regions");
    assertThat(regions.size()).isEqualTo(6);
    assertThat(regions.get(0).path("rank").asInt()).isEqualTo(1);
    // us-east-1: P Spot 384 with 336 in use cannot take 4 × p5.48xlarge
    var east = findRegion(regions, "us-east-1");
    assertThat(east.path("verdict").asText()).isEqualTo("NO_GO");
    assertThat(east.path("blockers").toString())
        .contains("P Spot quota 384 vCPU, 336 in use, plan needs 768: short by 720");
    assertThat(out.path("report").path("nodePools").toString())
        .contains("categories g and p share this pool");
    assertThat(retry.path("status").asText()).isEqualTo("ALREADY_HANDLED");
    assertThat(saved).hasSize(1);
    assertThat(publisher.published)
        .singleElement()
        .satisfies(p -> assertThat(p.detailType()).isEqualTo("GPU Fleet Preflight Report"));
    assertThat(notifier.sent)
        .singleElement()
        .satisfies(n -> assertThat(n.subject()).contains("NO_GO"));
    assertThat(metrics.snapshot().keySet())
        .anySatisfy(k -> assertThat(k).startsWith("QuotaHeadroomVcpu.P/Spot.us-east-1"));
  }

  @Test
  void shouldRejectABadPlanBeforeAnyAwsCall() throws Exception {
    JsonNode out =
        invoke(
            "{\"plan\":{\"regions\":[\"us-east-1\"],\"entries\":[{\"instanceType\":\"p5.48xlarge\",\"count\":0,\"capacityType\":\"spot\"}]}}"
                .getBytes());

    assertThat(out.path("status").asText()).isEqualTo("REJECTED");
    assertThat(out.path("message").asText())
        .contains("entries[0].count: must be at least 1, got 0");
    assertThat(stub.calls()).isEmpty();
  }

  @Test
  void shouldAcknowledgeAnUnreadablePayload() throws Exception {
    assertThat(invoke("not json".getBytes()).path("status").asText()).isEqualTo("REJECTED");
    assertThat(
            invoke(
                    "{\"detail-type\":\"CloudWatch Alarm State Change\",\"source\":\"aws.cloudwatch\"}"
                        .getBytes())
                .path("message")
                .asText())
        .contains("envelope field 'detail' must be an object");
  }

  private static JsonNode findRegion(JsonNode regions, String name) {
    for (JsonNode r : regions) {
      if (r.path("region").asText().equals(name)) {
        return r;
      }
    }
    throw new AssertionError("no " + name + " in " + regions);
  }

  /** The event corpus (peers' fixtures, AWS samples, stray payloads) and the other samples. */
  static java.util.stream.Stream<String> notAddressedToThePreflight() throws IOException {
    var names = new ArrayList<String>();
    try (var files = Files.walk(events())) {
      files
          .filter(Files::isRegularFile)
          .filter(p -> !p.toString().endsWith(".md") && !p.endsWith("corpus.json"))
          .map(p -> events().relativize(p).toString())
          .filter(n -> !n.startsWith("quota-alarm-") && !n.equals("preflight-daily-schedule.json"))
          .forEach(names::add);
    }
    assertThat(names).hasSizeGreaterThan(40);
    return names.stream().sorted();
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("notAddressedToThePreflight")
  void shouldNeverRunForAPayloadNotAddressedToIt(String file) throws Exception {
    var o = invoke(Files.readAllBytes(events().resolve(file)));

    assertThat(o.path("status").asText()).as(o.toString()).isIn("REJECTED", "IGNORED");
    assertThat(o.path("message").asText()).hasSizeLessThan(400);
    assertThat(saved).isEmpty();
    assertThat(notifier.sent).isEmpty();
    assertThat(account.requests()).isEmpty();
  }

  @Test
  void shouldRejectARunRequestFollowedByTrailingData() throws Exception {
    var o =
        invoke(
            "{\"regions\":[\"us-east-1\"]} {}".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    assertThat(o.path("status").asText()).isEqualTo("REJECTED");
    assertThat(saved).isEmpty();
  }

  private JsonNode invoke(byte[] payload) throws IOException {
    var out = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(payload), out, new LocalContext("capacity-preflight", 300_000));
    return Json.MAPPER.readTree(out.toByteArray());
  }

  static Path events() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("events")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir.resolve("events");
      }
    }
    throw new IllegalStateException("no events/ above " + Path.of("").toAbsolutePath());
  }

  private static JsonNode readUnchecked(Path p) {
    try {
      return Json.MAPPER.readTree(Files.readAllBytes(p));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}

package io.gpufleet.cost.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.json.Json;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.Dimension;
import software.amazon.awssdk.services.cloudwatch.model.MetricDatum;
import software.amazon.awssdk.services.cloudwatch.model.StandardUnit;

/**
 * Container Insights GPU utilisation against the AWS emulator (moto): the node_gpu_utilization
 * series the CloudWatch agent publishes (put with the SDK client), with its [ClusterName,
 * InstanceId, NodeName] dimension set, read back with GetMetricData through the adapter's {@link
 * AwsJson} client (held to botocore's model); pages and batches against a stub.
 */
class ContainerInsightsUtilisationAdapterTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();
  static CloudWatchClient cw;
  static AwsJson getMetricData;

  @BeforeAll
  static void client() {
    cw = AWS.emulator().clients().build(CloudWatchClient.builder());
    getMetricData = AwsJson.from(AWS.emulator().clients(), AwsJson.CLOUDWATCH);
  }

  @AfterAll
  static void close() {
    cw.close();
  }

  static NodeRecord node(String id, String name) {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    return new NodeRecord(
        id,
        name,
        "p5.48xlarge",
        "us-east-1",
        "us-east-1a",
        Lifecycle.ON_DEMAND,
        "pool",
        null,
        t,
        null,
        false,
        8,
        "nvidia.com/gpu",
        192_000,
        1L << 40,
        true,
        true,
        t,
        t);
  }

  static void put(String cluster, String id, String name, Instant at, double value) {
    cw.putMetricData(
        r ->
            r.namespace("ContainerInsights")
                .metricData(
                    MetricDatum.builder()
                        .metricName("node_gpu_utilization")
                        .dimensions(
                            Dimension.builder().name("ClusterName").value(cluster).build(),
                            Dimension.builder().name("InstanceId").value(id).build(),
                            Dimension.builder().name("NodeName").value(name).build())
                        .timestamp(at)
                        .value(value)
                        .unit(StandardUnit.PERCENT)
                        .build()));
  }

  @Test
  void shouldAverageEachNodesGpuUtilisationOverTheWindow() {
    Instant end = Instant.now().truncatedTo(ChronoUnit.HOURS);
    var window = new ReportWindow("6h", end.minus(Duration.ofHours(6)), end);
    put("ci-a", "i-0a", "node-a", end.minus(Duration.ofMinutes(150)), 80);
    put("ci-a", "i-0a", "node-a", end.minus(Duration.ofMinutes(90)), 60);
    put("ci-a", "i-0b", "node-b", end.minus(Duration.ofMinutes(30)), 10);
    put("ci-other", "i-0c", "node-c", end.minus(Duration.ofMinutes(30)), 99);
    // outside the window
    put("ci-a", "i-0b", "node-b", end.plus(Duration.ofMinutes(30)), 100);

    var u =
        new ContainerInsightsUtilisationAdapter(getMetricData, "ci-a")
            .read(
                window,
                List.of(node("i-0a", "node-a"), node("i-0b", "node-b"), node("i-0c", "node-c")));

    assertThat(u.source()).isEqualTo("container-insights");
    assertThat(u.nodePercent().get("node-a")).isCloseTo(70.0, within(1e-9));
    assertThat(u.nodePercent().get("node-b")).isCloseTo(10.0, within(1e-9));
    assertThat(u.nodePercent()).doesNotContainKey("node-c");
    assertThat(u.podPercent()).isEmpty();
    assertThat(u.notes()).anyMatch(n -> n.contains("per-pod utilisation is not read"));
  }

  @Test
  void shouldStateThatThereIsNoDataWhenTheAddOnPublishesNothing() {
    Instant end = Instant.now().truncatedTo(ChronoUnit.HOURS);
    var u =
        new ContainerInsightsUtilisationAdapter(getMetricData, "ci-empty")
            .read(
                new ReportWindow("1h", end.minus(Duration.ofHours(1)), end),
                List.of(node("i-0z", "z")));
    assertThat(u.nodePercent()).isEmpty();
    assertThat(u.notes()).anyMatch(n -> n.startsWith("no ContainerInsights node_gpu_utilization"));
  }

  static final String TARGET = "GraniteServiceVersion20100801.GetMetricData";

  /** One page of GetMetricData: each query id with the given values. */
  static AwsStubServer.Reply page(String nextToken, Map<String, List<Double>> values) {
    ObjectNode answer = Json.MAPPER.createObjectNode();
    var results = answer.putArray("MetricDataResults");
    values.forEach(
        (id, vs) -> {
          var r = results.addObject().put("Id", id).put("StatusCode", "Complete");
          vs.forEach(r.putArray("Values")::add);
        });
    if (nextToken != null) {
      answer.put("NextToken", nextToken);
    }
    return new AwsStubServer.Reply(200, "application/x-amz-json-1.0", answer.toString());
  }

  @Test
  void shouldAverageAcrossEveryPageAndSendTheWindowAsEpochSeconds() throws Exception {
    try (var stub = AwsStubServer.start()) {
      stub.on(
          TARGET,
          c ->
              c.body().contains("\"NextToken\":\"p2\"")
                  ? page(null, Map.of("n0", List.of(40.0)))
                  : page("p2", Map.of("n0", List.of(90.0, 80.0), "n1", List.of(5.0))));
      Instant end = Instant.parse("2026-11-30T02:00:00Z");
      var window = new ReportWindow("6h", end.minus(Duration.ofHours(6)), end);

      var u =
          new ContainerInsightsUtilisationAdapter(
                  AwsJson.from(stub.clients(Region.US_EAST_1), AwsJson.CLOUDWATCH), "prod")
              .read(window, List.of(node("i-0a", "node-a"), node("i-0b", "node-b")));

      assertThat(u.nodePercent().get("node-a")).isCloseTo(70.0, within(1e-9));
      assertThat(u.nodePercent().get("node-b")).isCloseTo(5.0, within(1e-9));
      var calls = stub.calls(TARGET);
      assertThat(calls).hasSize(2);
      JsonNode first = Json.MAPPER.readTree(calls.get(0).body());
      assertThat(first.path("StartTime").isIntegralNumber()).isTrue();
      assertThat(first.path("StartTime").asLong()).isEqualTo(window.start().getEpochSecond());
      assertThat(first.path("EndTime").asLong()).isEqualTo(end.getEpochSecond());
      assertThat(first.at("/MetricDataQueries/1/MetricStat/Metric/Dimensions/2/Value").asText())
          .isEqualTo("node-b");
      assertThat(calls.get(0).headers().get("content-type"))
          .isEqualTo("application/x-amz-json-1.0");
    }
  }

  @Test
  void shouldAskForAtMostFiveHundredNodesPerCall() throws Exception {
    try (var stub = AwsStubServer.start()) {
      stub.on(TARGET, c -> page(null, Map.of("n500", List.of(12.0))));
      var nodes = new ArrayList<NodeRecord>();
      for (int i = 0; i < 501; i++) {
        nodes.add(node("i-" + i, "node-" + i));
      }
      Instant end = Instant.parse("2026-11-30T02:00:00Z");

      var u =
          new ContainerInsightsUtilisationAdapter(
                  AwsJson.from(stub.clients(Region.US_EAST_1), AwsJson.CLOUDWATCH), "prod")
              .read(new ReportWindow("1h", end.minus(Duration.ofHours(1)), end), nodes);

      var calls = stub.calls(TARGET);
      assertThat(calls).hasSize(2);
      assertThat(Json.MAPPER.readTree(calls.get(0).body()).path("MetricDataQueries")).hasSize(500);
      var second = Json.MAPPER.readTree(calls.get(1).body()).path("MetricDataQueries");
      assertThat(second).hasSize(1);
      assertThat(second.get(0).path("Id").asText()).isEqualTo("n500");
      // the 501st node's answer, matched by its id in the second batch
      assertThat(u.nodePercent()).containsOnlyKeys("node-500");
    }
  }
}

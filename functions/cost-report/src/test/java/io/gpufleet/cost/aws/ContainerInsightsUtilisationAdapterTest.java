package io.gpufleet.cost.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.sim.aws.AwsEmulatorExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.Dimension;
import software.amazon.awssdk.services.cloudwatch.model.MetricDatum;
import software.amazon.awssdk.services.cloudwatch.model.StandardUnit;

/**
 * Container Insights GPU utilisation through the real SDK CloudWatch client against the AWS
 * emulator (moto): the node_gpu_utilization series the CloudWatch agent publishes, with its
 * [ClusterName, InstanceId, NodeName] dimension set, read back with GetMetricData.
 */
class ContainerInsightsUtilisationAdapterTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();
  static CloudWatchClient cw;

  @BeforeAll
  static void client() {
    cw = AWS.emulator().clients().build(CloudWatchClient.builder());
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
        new ContainerInsightsUtilisationAdapter(cw, "ci-a")
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
        new ContainerInsightsUtilisationAdapter(cw, "ci-empty")
            .read(
                new ReportWindow("1h", end.minus(Duration.ofHours(1)), end),
                List.of(node("i-0z", "z")));
    assertThat(u.nodePercent()).isEmpty();
    assertThat(u.notes()).anyMatch(n -> n.startsWith("no ContainerInsights node_gpu_utilization"));
  }
}

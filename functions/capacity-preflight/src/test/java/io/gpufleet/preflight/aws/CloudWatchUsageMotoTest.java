package io.gpufleet.preflight.aws;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * GetMetricData over CloudWatch's JSON 1.0 protocol against the AWS emulator: usage put as
 * AWS/Usage ResourceCount datapoints (PutMetricData on the same protocol, held to the model like
 * every request) comes back as the maximum of the last hour, per class and per region.
 */
class CloudWatchUsageMotoTest {
  @RegisterExtension
  static final AwsEmulatorExtension AWS = AwsEmulatorExtension.forServices("cloudwatch");

  static RegionalClients clients;

  @BeforeAll
  static void create() {
    var e = AWS.emulator();
    clients = new RegionalClients(e.credentials(), Optional.of(e.endpoint()));
  }

  @AfterAll
  static void close() {
    clients.close();
  }

  static void putUsage(String region, String usageClass, Instant at, double vcpus) {
    var input = AwsJson.input().put("Namespace", "AWS/Usage");
    var datum =
        input
            .putArray("MetricData")
            .addObject()
            .put("MetricName", "ResourceCount")
            .put("Timestamp", at.getEpochSecond())
            .put("Value", vcpus);
    // in the adapter's order: moto matches a query's dimensions to a metric's as an ordered list
    // (CloudWatch does not), and Map.of's order changes from one JVM to the next
    var dimensions = datum.putArray("Dimensions");
    for (String[] d :
        new String[][] {
          {"Service", "EC2"}, {"Type", "Resource"}, {"Resource", "vCPU"}, {"Class", usageClass}
        }) {
      dimensions.addObject().put("Name", d[0]).put("Value", d[1]);
    }
    clients.cloudWatch(region).call("PutMetricData", input);
  }

  @Test
  void shouldReadTheMaximumOfTheLastHourPerClassInTheRegionAsked() {
    Instant now = Instant.now();
    putUsage("eu-central-1", "P/Spot", now.minus(Duration.ofMinutes(20)), 96);
    putUsage("eu-central-1", "P/Spot", now.minus(Duration.ofMinutes(10)), 192);
    putUsage("eu-central-1", "P/Spot", now.minus(Duration.ofHours(3)), 999); // outside the hour
    putUsage("eu-central-1", "G/OnDemand", now.minus(Duration.ofMinutes(5)), 48);
    putUsage("eu-north-1", "P/Spot", now.minus(Duration.ofMinutes(5)), 512); // another region
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);
    var g = new QuotaBucket.Key(QuotaBucket.G_VT, CapacityType.ON_DEMAND);
    var trn = new QuotaBucket.Key(QuotaBucket.TRN, CapacityType.SPOT);

    var usage =
        new CloudWatchUsageAdapter(clients, Clock.systemUTC())
            .maxUsageLastHour(
                "eu-central-1", Map.of(p, "P/Spot", g, "G/OnDemand", trn, "Trn/Spot"));

    assertThat(usage).containsExactlyInAnyOrderEntriesOf(Map.of(p, 192.0, g, 48.0));
  }
}

package io.gpufleet.preflight.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.UsagePort;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * vCPU usage from CloudWatch {@code AWS/Usage} (ResourceCount, Service=EC2, Type=Resource,
 * Resource=vCPU, Class=&lt;bucket&gt;/&lt;OnDemand|Spot&gt;): the maximum of the 1-minute data over
 * the last hour, all classes of a region in one GetMetricData call (JSON protocol: StartTime and
 * EndTime as epoch seconds; every page followed by its NextToken).
 */
public final class CloudWatchUsageAdapter implements UsagePort {
  private final RegionalClients clients;
  private final Clock clock;

  public CloudWatchUsageAdapter(RegionalClients clients, Clock clock) {
    this.clients = clients;
    this.clock = clock;
  }

  @Override
  public Map<QuotaBucket.Key, Double> maxUsageLastHour(
      String region, Map<QuotaBucket.Key, String> usageClasses) {
    var out = new TreeMap<QuotaBucket.Key, Double>();
    if (usageClasses.isEmpty()) {
      return out;
    }
    var ids = new HashMap<String, QuotaBucket.Key>();
    Instant end = clock.instant().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1));
    Instant start = end.minus(Duration.ofHours(1));
    ObjectNode input =
        AwsJson.input()
            .put("StartTime", start.getEpochSecond())
            .put("EndTime", end.getEpochSecond());
    ArrayNode queries = input.putArray("MetricDataQueries");
    int i = 0;
    for (var e : usageClasses.entrySet()) {
      String id = "u" + i++;
      ids.put(id, e.getKey());
      ObjectNode query = queries.addObject().put("Id", id).put("ReturnData", true);
      ObjectNode stat = query.putObject("MetricStat").put("Period", 60).put("Stat", "Maximum");
      ObjectNode metric =
          stat.putObject("Metric").put("Namespace", "AWS/Usage").put("MetricName", "ResourceCount");
      ArrayNode dimensions = metric.putArray("Dimensions");
      for (var d :
          List.of(
              Map.entry("Service", "EC2"),
              Map.entry("Type", "Resource"),
              Map.entry("Resource", "vCPU"),
              Map.entry("Class", e.getValue()))) {
        dimensions.addObject().put("Name", d.getKey()).put("Value", d.getValue());
      }
    }
    clients
        .cloudWatch(region)
        .paginate(
            "GetMetricData",
            input,
            page ->
                page.path("MetricDataResults")
                    .forEach(
                        r -> {
                          var key = ids.get(r.path("Id").asText());
                          JsonNode values = r.path("Values");
                          if (key != null && !values.isEmpty()) {
                            double max = Double.NEGATIVE_INFINITY;
                            for (JsonNode v : values) {
                              max = Math.max(max, v.asDouble());
                            }
                            out.merge(key, max, Math::max);
                          }
                        }));
    return out;
  }

  @Override
  public java.util.Optional<String> alarmState(String region, String alarmName) {
    ObjectNode input = AwsJson.input();
    input.putArray("AlarmNames").add(alarmName);
    input.putArray("AlarmTypes").add("MetricAlarm");
    JsonNode out = clients.cloudWatch(region).call("DescribeAlarms", input);
    for (JsonNode a : out.path("MetricAlarms")) {
      if (alarmName.equals(a.path("AlarmName").asText())) {
        return java.util.Optional.of(a.path("StateValue").asText());
      }
    }
    return java.util.Optional.empty();
  }
}

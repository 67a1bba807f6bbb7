package io.gpufleet.preflight.aws;

import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.UsagePort;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.cloudwatch.model.Dimension;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataQuery;

/**
 * vCPU usage from CloudWatch {@code AWS/Usage} (ResourceCount, Service=EC2, Type=Resource,
 * Resource=vCPU, Class=&lt;bucket&gt;/&lt;OnDemand|Spot&gt;): the maximum of the 1-minute data over
 * the last hour, all classes of a region in one GetMetricData call.
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
    var queries = new ArrayList<MetricDataQuery>();
    int i = 0;
    for (var e : usageClasses.entrySet()) {
      String id = "u" + i++;
      ids.put(id, e.getKey());
      String usageClass = e.getValue();
      queries.add(
          MetricDataQuery.builder()
              .id(id)
              .returnData(true)
              .metricStat(
                  s ->
                      s.period(60)
                          .stat("Maximum")
                          .metric(
                              m ->
                                  m.namespace("AWS/Usage")
                                      .metricName("ResourceCount")
                                      .dimensions(
                                          dim("Service", "EC2"),
                                          dim("Type", "Resource"),
                                          dim("Resource", "vCPU"),
                                          dim("Class", usageClass))))
              .build());
    }
    Instant end = clock.instant().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1));
    Instant start = end.minus(Duration.ofHours(1));
    clients
        .cloudWatch(region)
        .getMetricDataPaginator(r -> r.metricDataQueries(queries).startTime(start).endTime(end))
        .metricDataResults()
        .forEach(
            r -> {
              var key = ids.get(r.id());
              if (key != null && r.hasValues() && !r.values().isEmpty()) {
                double max = r.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
                out.merge(key, max, Math::max);
              }
            });
    return out;
  }

  private static Dimension dim(String name, String value) {
    return Dimension.builder().name(name).value(value).build();
  }
}

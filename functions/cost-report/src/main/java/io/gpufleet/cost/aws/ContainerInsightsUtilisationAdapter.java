package io.gpufleet.cost.aws;

import io.gpufleet.cost.UtilisationPort;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.Dimension;
import software.amazon.awssdk.services.cloudwatch.model.GetMetricDataRequest;
import software.amazon.awssdk.services.cloudwatch.model.Metric;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataQuery;
import software.amazon.awssdk.services.cloudwatch.model.MetricStat;

/**
 * Node GPU utilisation from CloudWatch Container Insights with enhanced observability (the
 * CloudWatch Observability EKS add-on with accelerated compute metrics): {@code
 * ContainerInsights/node_gpu_utilization} with dimensions [ClusterName, InstanceId, NodeName],
 * hourly averages over the window averaged, up to 500 nodes per GetMetricData call. Per-pod GPU
 * metrics carry a ContainerName dimension the inventory does not know, and Container Insights has
 * no token counters: both are stated as missing.
 */
public final class ContainerInsightsUtilisationAdapter implements UtilisationPort {
  static final String NAMESPACE = "ContainerInsights";
  static final String METRIC = "node_gpu_utilization";
  private static final int PER_CALL = 500;

  private final CloudWatchClient cloudWatch;
  private final String cluster;

  public ContainerInsightsUtilisationAdapter(CloudWatchClient cloudWatch, String cluster) {
    this.cloudWatch = cloudWatch;
    this.cluster = cluster;
  }

  @Override
  public Utilisation read(ReportWindow w, List<NodeRecord> gpuNodes) {
    var nodes =
        gpuNodes.stream()
            .filter(n -> n.nodeName() != null && n.id() != null && n.id().startsWith("i-"))
            .toList();
    var out = new HashMap<String, Double>();
    var ids = new HashMap<String, String>();
    for (int from = 0; from < nodes.size(); from += PER_CALL) {
      var batch = nodes.subList(from, Math.min(nodes.size(), from + PER_CALL));
      var queries = new ArrayList<MetricDataQuery>();
      for (int i = 0; i < batch.size(); i++) {
        NodeRecord n = batch.get(i);
        String id = "n" + (from + i);
        ids.put(id, n.nodeName());
        queries.add(
            MetricDataQuery.builder()
                .id(id)
                .returnData(true)
                .metricStat(
                    MetricStat.builder()
                        .metric(
                            Metric.builder()
                                .namespace(NAMESPACE)
                                .metricName(METRIC)
                                .dimensions(
                                    dim("ClusterName", cluster),
                                    dim("InstanceId", n.id()),
                                    dim("NodeName", n.nodeName()))
                                .build())
                        .period(3600)
                        .stat("Average")
                        .build())
                .build());
      }
      var sums = new HashMap<String, double[]>();
      String token = null;
      do {
        var resp =
            cloudWatch.getMetricData(
                GetMetricDataRequest.builder()
                    .startTime(w.start())
                    .endTime(w.end())
                    .metricDataQueries(queries)
                    .nextToken(token)
                    .build());
        for (var r : resp.metricDataResults()) {
          var acc = sums.computeIfAbsent(r.id(), k -> new double[2]);
          for (Double v : r.values()) {
            acc[0] += v;
            acc[1]++;
          }
        }
        token = resp.nextToken();
      } while (token != null);
      sums.forEach(
          (id, acc) -> {
            if (acc[1] > 0) {
              out.put(ids.get(id), acc[0] / acc[1]);
            }
          });
    }
    var notes = new ArrayList<String>();
    if (out.isEmpty()) {
      notes.add(
          "no ContainerInsights node_gpu_utilization data (CloudWatch Observability add-on with"
              + " accelerated compute metrics installed?)");
    }
    notes.add(
        "per-pod utilisation is not read from CloudWatch (its dimensions need container names)");
    return new Utilisation("container-insights", out, Map.of(), List.of(), notes);
  }

  private static Dimension dim(String name, String value) {
    return Dimension.builder().name(name).value(value).build();
  }
}

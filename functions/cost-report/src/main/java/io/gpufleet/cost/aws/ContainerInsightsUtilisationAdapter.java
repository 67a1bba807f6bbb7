package io.gpufleet.cost.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.cost.UtilisationPort;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Node GPU utilisation from CloudWatch Container Insights with enhanced observability (the
 * CloudWatch Observability EKS add-on with accelerated compute metrics): {@code
 * ContainerInsights/node_gpu_utilization} with dimensions [ClusterName, InstanceId, NodeName],
 * hourly averages over the window averaged, up to 500 nodes per GetMetricData call (through {@link
 * AwsJson}, every page followed). Per-pod GPU metrics carry a ContainerName dimension the inventory
 * does not know, and Container Insights has no token counters: both are stated as missing.
 */
public final class ContainerInsightsUtilisationAdapter implements UtilisationPort {
  static final String NAMESPACE = "ContainerInsights";
  static final String METRIC = "node_gpu_utilization";
  private static final int PER_CALL = 500;

  private final AwsJson cloudWatch;
  private final String cluster;

  public ContainerInsightsUtilisationAdapter(AwsJson cloudWatch, String cluster) {
    if (!cloudWatch.service().equals(AwsJson.CLOUDWATCH)) {
      throw new IllegalArgumentException("not a CloudWatch client: " + cloudWatch.service());
    }
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
      ObjectNode input = AwsJson.input();
      input.put("StartTime", AwsJson.timestamp(w.start()));
      input.put("EndTime", AwsJson.timestamp(w.end()));
      ArrayNode queries = input.putArray("MetricDataQueries");
      for (int i = 0; i < batch.size(); i++) {
        NodeRecord n = batch.get(i);
        String id = "n" + (from + i);
        ids.put(id, n.nodeName());
        ObjectNode query = queries.addObject().put("Id", id).put("ReturnData", true);
        ObjectNode stat = query.putObject("MetricStat");
        ObjectNode metric =
            stat.putObject("Metric").put("Namespace", NAMESPACE).put("MetricName", METRIC);
        ArrayNode dimensions = metric.putArray("Dimensions");
        dimensions.addObject().put("Name", "ClusterName").put("Value", cluster);
        dimensions.addObject().put("Name", "InstanceId").put("Value", n.id());
        dimensions.addObject().put("Name", "NodeName").put("Value", n.nodeName());
        stat.put("Period", 3600).put("Stat", "Average");
      }
      var sums = new HashMap<String, double[]>();
      cloudWatch.paginate(
          "GetMetricData",
          input,
          page -> {
            for (JsonNode r : page.path("MetricDataResults")) {
              var acc = sums.computeIfAbsent(r.path("Id").asText(), k -> new double[2]);
              for (JsonNode v : r.path("Values")) {
                acc[0] += v.asDouble();
                acc[1]++;
              }
            }
          });
      sums.forEach(
          (id, acc) -> {
            if (acc[1] > 0 && ids.containsKey(id)) {
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
}

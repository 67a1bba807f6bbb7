package io.gpufleet.sim.aws;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * CloudWatch GetMetricData on the {@link AwsStubServer} (AWS query protocol, {@code
 * Action=GetMetricData}) over the datapoints put here: each {@code MetricStat} query is answered
 * with the datapoints of its namespace, metric name and dimensions inside [StartTime, EndTime),
 * summed per {@code Period} bucket (the statistic is Sum whatever the query asks: the callers ask
 * for counters), ordered as {@code ScanBy} asks (TimestampDescending by default, as CloudWatch).
 * One page: no NextToken.
 */
public final class SimCloudWatch {
  public static final String OPERATION = "GetMetricData";

  /** One published value. */
  record Point(
      String namespace, String name, Map<String, String> dimensions, Instant at, double v) {}

  private final List<Point> points = new CopyOnWriteArrayList<>();

  private SimCloudWatch() {}

  /** Serves GetMetricData on {@code stub}. */
  public static SimCloudWatch serve(AwsStubServer stub) {
    var cw = new SimCloudWatch();
    stub.on(OPERATION, cw::getMetricData);
    return cw;
  }

  /** Publishes {@code value} of a metric with these dimensions at {@code at}. */
  public SimCloudWatch put(
      String namespace, String name, Map<String, String> dimensions, Instant at, double value) {
    points.add(new Point(namespace, name, Map.copyOf(dimensions), at, value));
    return this;
  }

  /** Forgets every datapoint of the metric {@code name} (all dimensions). */
  public SimCloudWatch clear(String name) {
    points.removeIf(p -> p.name().equals(name));
    return this;
  }

  private AwsStubServer.Reply getMetricData(AwsStubServer.Call call) {
    var p = call.params();
    Instant start = Instant.parse(p.get("StartTime"));
    Instant end = Instant.parse(p.get("EndTime"));
    boolean ascending = "TimestampAscending".equals(p.get("ScanBy"));
    var xml = new StringBuilder();
    xml.append(
        "<GetMetricDataResponse xmlns=\"http://monitoring.amazonaws.com/doc/2010-08-01/\">"
            + "<GetMetricDataResult><MetricDataResults>");
    for (int i = 1; p.containsKey("MetricDataQueries.member." + i + ".Id"); i++) {
      String q = "MetricDataQueries.member." + i + ".";
      String stat = q + "MetricStat.";
      String namespace = p.get(stat + "Metric.Namespace");
      String name = p.get(stat + "Metric.MetricName");
      var dimensions = new TreeMap<String, String>();
      for (int d = 1; p.containsKey(stat + "Metric.Dimensions.member." + d + ".Name"); d++) {
        dimensions.put(
            p.get(stat + "Metric.Dimensions.member." + d + ".Name"),
            p.get(stat + "Metric.Dimensions.member." + d + ".Value"));
      }
      long period = Long.parseLong(p.getOrDefault(stat + "Period", "60"));
      var buckets = new TreeMap<Instant, Double>();
      for (var point : points) {
        if (point.namespace().equals(namespace)
            && point.name().equals(name)
            && point.dimensions().equals(dimensions)
            && !point.at().isBefore(start)
            && point.at().isBefore(end)) {
          long offset = (point.at().getEpochSecond() - start.getEpochSecond()) / period * period;
          buckets.merge(start.plusSeconds(offset), point.v(), Double::sum);
        }
      }
      var keys = new ArrayList<>(buckets.keySet());
      keys.sort(ascending ? Comparator.naturalOrder() : Comparator.reverseOrder());
      xml.append("<member><Id>")
          .append(p.get(q + "Id"))
          .append("</Id><Label>")
          .append(p.getOrDefault(q + "Label", name))
          .append("</Label><Timestamps>");
      keys.forEach(k -> xml.append("<member>").append(k).append("</member>"));
      xml.append("</Timestamps><Values>");
      keys.forEach(k -> xml.append("<member>").append(buckets.get(k)).append("</member>"));
      xml.append("</Values><StatusCode>Complete</StatusCode></member>");
    }
    xml.append(
        "</MetricDataResults><Messages/></GetMetricDataResult>"
            + "<ResponseMetadata><RequestId>sim</RequestId></ResponseMetadata>"
            + "</GetMetricDataResponse>");
    return AwsStubServer.Reply.xml(xml.toString());
  }
}

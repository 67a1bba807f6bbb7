package io.gpufleet.cost;

import static io.gpufleet.cost.ReportBuilder.round3;

import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.CostReport.NodeCost;
import io.gpufleet.cost.model.CostReport.Row;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The report's per-dimension summaries: cost, node-hours and GPU-hours by NodePool, instance type,
 * capacity type and zone (over the nodes), and by namespace and team (over the rows, idle rows
 * included); each dimension costliest first.
 */
final class Rollups {
  private Rollups() {}

  /** Every dimension, in the report's order. */
  static Map<String, List<CostReport.Rollup>> of(List<NodeCost> nodes, List<Row> rows) {
    var rollups = new LinkedHashMap<String, List<CostReport.Rollup>>();
    rollups.put("nodePool", nodeRollup(nodes, NodeCost::nodePool));
    rollups.put("instanceType", nodeRollup(nodes, NodeCost::instanceType));
    rollups.put("capacityType", nodeRollup(nodes, NodeCost::capacityType));
    rollups.put("zone", nodeRollup(nodes, NodeCost::zone));
    rollups.put("namespace", rowRollup(rows, Row::namespace));
    rollups.put("team", rowRollup(rows, Row::team));
    return rollups;
  }

  private static List<CostReport.Rollup> nodeRollup(
      List<NodeCost> nodes, Function<NodeCost, String> key) {
    var acc = new TreeMap<String, double[]>();
    var money = new TreeMap<String, BigDecimal[]>();
    for (NodeCost n : nodes) {
      String k = key.apply(n) == null ? "(none)" : key.apply(n);
      var d = acc.computeIfAbsent(k, x -> new double[3]);
      d[0] += n.hours();
      d[1] += n.gpuCapacityHours();
      d[2] += n.gpuRequestedHours();
      var m = money.computeIfAbsent(k, x -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
      m[0] = m[0].add(n.effectiveCost());
      m[1] = m[1].add(n.listCost());
    }
    return sorted(acc, money);
  }

  /** Hot: one pass over every row (a pod's part or a node's idle rest) per dimension. */
  private static List<CostReport.Rollup> rowRollup(List<Row> rows, Function<Row, String> key) {
    var acc = new HashMap<String, double[]>();
    var money = new HashMap<String, BigDecimal[]>();
    for (Row r : rows) {
      String k = key.apply(r) == null ? "(none)" : key.apply(r);
      var d = acc.computeIfAbsent(k, x -> new double[3]);
      d[1] += r.gpuHours();
      d[2] += r.gpuRequestedHours();
      var m = money.computeIfAbsent(k, x -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
      m[0] = m[0].add(r.effectiveCost());
      m[1] = m[1].add(r.listCost());
    }
    return sorted(acc, money);
  }

  private static List<CostReport.Rollup> sorted(
      Map<String, double[]> acc, Map<String, BigDecimal[]> money) {
    var out = new ArrayList<CostReport.Rollup>();
    acc.forEach(
        (k, d) ->
            out.add(
                new CostReport.Rollup(
                    k,
                    money.get(k)[0],
                    money.get(k)[1],
                    round3(d[0]),
                    round3(d[1]),
                    round3(d[2]))));
    out.sort(
        Comparator.comparing(CostReport.Rollup::effectiveCost)
            .reversed()
            .thenComparing(CostReport.Rollup::key));
    return out;
  }
}

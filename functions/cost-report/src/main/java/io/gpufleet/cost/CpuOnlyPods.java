package io.gpufleet.cost;

import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.PodRecord;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Pods that request no GPU on a GPU node, priced under each reference rule and the configured one:
 * every one is counted and its cost added to the totals by rule; the costliest {@link
 * ReportBuilder#CPU_ONLY_LISTED} (by their dearest rule) are kept in a bounded min-heap to be
 * listed.
 */
final class CpuOnlyPods {
  private static final MathContext MC = MathContext.DECIMAL64;

  private final List<AllocationRule> rules;
  private final PriorityQueue<CostReport.CpuOnlyPod> costliest =
      new PriorityQueue<>(Comparator.comparing(CpuOnlyPods::dearest));
  private final Map<String, BigDecimal> costByRule = new LinkedHashMap<>();
  private int count;

  CpuOnlyPods(AllocationRule configured) {
    this.rules = ReportBuilder.cpuOnlyRules(configured);
  }

  /**
   * Each rule's shares of the node's pods ({@code [rule][pod]}), or null when the node has no
   * accelerators or no pod without a GPU request.
   */
  double[][] shares(NodeRecord n, Allocator.Capacity cap, Allocator.Demand[] demands) {
    if (n.accelerators() <= 0) {
      return null;
    }
    boolean any = false;
    for (var d : demands) {
      any |= d.gpuHours() <= 0;
    }
    if (!any) {
      return null;
    }
    var out = new double[rules.size()][];
    for (int r = 0; r < rules.size(); r++) {
      out[r] = Allocator.shares(cap, demands, rules.get(r));
    }
    return out;
  }

  /**
   * Counts pod {@code i} of node {@code n} ({@code hours} on it): its cost under each rule is its
   * share of the node's {@code effective} cost, to the cent.
   */
  void add(
      PodRecord p, NodeRecord n, double hours, BigDecimal effective, double[][] shares, int i) {
    var byRule = new LinkedHashMap<String, BigDecimal>();
    for (int r = 0; r < rules.size(); r++) {
      BigDecimal c =
          effective
              .multiply(BigDecimal.valueOf(shares[r][i]), MC)
              .setScale(2, RoundingMode.HALF_EVEN);
      byRule.put(rules.get(r).name(), c);
      costByRule.merge(rules.get(r).name(), c, BigDecimal::add);
    }
    count++;
    costliest.add(
        new CostReport.CpuOnlyPod(
            p.namespace(), p.name(), n.nodeName(), n.instanceType(), hours, byRule));
    if (costliest.size() > ReportBuilder.CPU_ONLY_LISTED) {
      costliest.poll();
    }
  }

  /** How many there were. */
  int count() {
    return count;
  }

  /** What they cost together, by rule name (in the order of {@link ReportBuilder#cpuOnlyRules}). */
  Map<String, BigDecimal> costByRule() {
    return costByRule;
  }

  /** The listed ones, costliest first. */
  List<CostReport.CpuOnlyPod> listed() {
    var out = new ArrayList<>(costliest);
    out.sort(Comparator.comparing(CpuOnlyPods::dearest).reversed());
    return out;
  }

  private static BigDecimal dearest(CostReport.CpuOnlyPod c) {
    BigDecimal max = BigDecimal.ZERO;
    for (BigDecimal v : c.costByRule().values()) {
      max = v.compareTo(max) > 0 ? v : max;
    }
    return max;
  }
}

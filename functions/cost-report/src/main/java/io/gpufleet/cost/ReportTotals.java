package io.gpufleet.cost;

import static io.gpufleet.cost.ReportBuilder.hours;
import static io.gpufleet.cost.ReportBuilder.round3;

import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.CostReport.NodeCost;
import io.gpufleet.cost.model.CostReport.Row;
import io.gpufleet.cost.model.Kpis;
import io.gpufleet.cost.model.ReportWindow;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;

/**
 * The report's totals: its KPIs (cost, Spot share and savings, GPU-hours and idle GPU, run rate and
 * month projection over the nodes; then GPU sharing, measured utilisation, CPU-only pods and cost
 * per million tokens) and the reconciliation of the rows against the nodes.
 */
final class ReportTotals {
  private static final MathContext MC = MathContext.DECIMAL64;

  private ReportTotals() {}

  /** Every KPI of a report over {@code w} with {@code pods} distinct pods. */
  static Kpis kpis(
      List<NodeCost> nodes,
      List<CostReport.GpuNode> gpuNodes,
      ReportWindow w,
      int pods,
      CpuOnlyPods cpuOnly,
      List<CostReport.TokenCost> tokens) {
    var k = Kpis.builder();
    costs(k, nodes, w, pods);
    utilisation(k, nodes);
    gpus(k, nodes, gpuNodes);
    k.cpuOnlyPodsOnGpuNodes(cpuOnly.count()).cpuOnlyPodCostByRule(cpuOnly.costByRule());
    BigDecimal tokenCost = BigDecimal.ZERO;
    double tokenCount = 0;
    for (var t : tokens) {
      tokenCost = tokenCost.add(t.cost());
      tokenCount += t.outputTokens();
    }
    return k.costPerMillionOutputTokens(
            tokenCount > 0
                ? tokenCost
                    .multiply(BigDecimal.valueOf(1_000_000), MC)
                    .divide(BigDecimal.valueOf(tokenCount), MC)
                    .setScale(4, RoundingMode.HALF_EVEN)
                : null)
        .build();
  }

  /** Costs, Spot, GPU-hours, idle GPU, run rate, projection and the node and pod counts. */
  private static void costs(Kpis.Builder k, List<NodeCost> nodes, ReportWindow w, int pods) {
    BigDecimal total = BigDecimal.ZERO;
    BigDecimal list = BigDecimal.ZERO;
    BigDecimal savings = BigDecimal.ZERO;
    BigDecimal spotCost = BigDecimal.ZERO;
    BigDecimal gpuNodeCost = BigDecimal.ZERO;
    BigDecimal idleGpuCost = BigDecimal.ZERO;
    BigDecimal allocatedIdle = BigDecimal.ZERO;
    double nodeHours = 0;
    double spotHours = 0;
    double gpuCap = 0;
    double gpuReq = 0;
    int noMatch = 0;
    int snapshotOnly = 0;
    int unpriced = 0;
    for (NodeCost n : nodes) {
      total = total.add(n.effectiveCost());
      list = list.add(n.listCost());
      allocatedIdle = allocatedIdle.add(n.idleCost());
      nodeHours += n.hours();
      if ("spot".equals(n.capacityType())) {
        spotHours += n.hours();
        spotCost = spotCost.add(n.effectiveCost());
        savings = savings.add(n.listCost().subtract(n.effectiveCost()));
      }
      if (n.accelerators() > 0) {
        gpuNodeCost = gpuNodeCost.add(n.effectiveCost());
        gpuCap += n.gpuCapacityHours();
        gpuReq += n.gpuRequestedHours();
        if (n.gpuCapacityHours() > 0) {
          double idleShare = Math.max(0, 1 - n.gpuRequestedHours() / n.gpuCapacityHours());
          idleGpuCost =
              idleGpuCost.add(n.effectiveCost().multiply(BigDecimal.valueOf(idleShare), MC));
        }
      }
      if (!n.ec2Matched()) {
        noMatch++;
      }
      if (n.endEstimated()) {
        snapshotOnly++;
      }
      if ("unknown".equals(n.priceSource())) {
        unpriced++;
      }
    }
    double windowHours = hours(w.start(), w.end());
    BigDecimal runRate = total.divide(BigDecimal.valueOf(windowHours), MC);
    var end = w.end().atZone(ZoneOffset.UTC);
    YearMonth month = YearMonth.from(end);
    Instant monthEnd = month.plusMonths(1).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    Instant monthStart = month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    BigDecimal projected =
        "mtd".equals(w.spec())
            ? total.add(runRate.multiply(BigDecimal.valueOf(hours(w.end(), monthEnd)), MC))
            : runRate.multiply(BigDecimal.valueOf(hours(monthStart, monthEnd)), MC);
    k.totalCost(total)
        .onDemandEquivalentCost(list)
        .spotSavings(savings)
        .spotShareOfNodeHours(ratio(spotHours, nodeHours))
        .spotShareOfCost(
            total.signum() == 0 ? 0 : round4(spotCost.doubleValue() / total.doubleValue()))
        .nodeHours(round3(nodeHours))
        .gpuCapacityHours(round3(gpuCap))
        .gpuRequestedHours(round3(gpuReq))
        .costPerGpuHour(
            gpuCap > 0
                ? gpuNodeCost
                    .divide(BigDecimal.valueOf(gpuCap), MC)
                    .setScale(4, RoundingMode.HALF_EVEN)
                : null)
        .idleGpuPercent(gpuCap > 0 ? Math.round((gpuCap - gpuReq) / gpuCap * 10000.0) / 100.0 : 0)
        .idleGpuCost(idleGpuCost.setScale(2, RoundingMode.HALF_EVEN))
        .allocatedIdleCost(allocatedIdle)
        .runRatePerHour(runRate.setScale(2, RoundingMode.HALF_EVEN))
        .projectedMonthTotal(projected.setScale(2, RoundingMode.HALF_EVEN))
        .nodes(nodes.size())
        .nodesWithoutEc2Match(noMatch)
        .nodesFromSnapshotOnly(snapshotOnly)
        .unpricedNodes(unpriced)
        .pods(pods);
  }

  /** Commitment savings, and the measured utilisation where a source had it. */
  private static void utilisation(Kpis.Builder k, List<NodeCost> nodes) {
    BigDecimal saved = BigDecimal.ZERO;
    BigDecimal utilIdle = BigDecimal.ZERO;
    double utilWeighted = 0;
    double utilHours = 0;
    boolean anyUtil = false;
    for (NodeCost n : nodes) {
      saved = saved.add(n.commitmentSavings());
      if (n.utilisationPercent() != null && n.gpuCapacityHours() > 0) {
        anyUtil = true;
        utilIdle = utilIdle.add(n.utilisationIdleCost());
        utilWeighted += n.utilisationPercent() * n.gpuCapacityHours();
        utilHours += n.gpuCapacityHours();
      }
    }
    k.commitmentSavings(saved)
        .gpuUtilisationPercent(anyUtil ? Math.round(utilWeighted / utilHours * 100) / 100.0 : null)
        .utilisationIdleGpuCost(anyUtil ? utilIdle : null);
  }

  /**
   * Physical GPUs, the units the scheduler sees (replicas, MIG slices, DRA devices), zero nodes.
   */
  private static void gpus(
      Kpis.Builder k, List<NodeCost> nodes, List<CostReport.GpuNode> gpuNodes) {
    int physical = 0;
    int advertised = 0;
    int zero = 0;
    for (var g : gpuNodes) {
      physical += g.physicalGpus();
      if (g.flags().stream().anyMatch(f -> f.startsWith("GPU instance with 0 allocatable"))) {
        zero++;
      }
    }
    for (NodeCost n : nodes) {
      if (n.advertisedGpus() != null && !"-".equals(n.advertisedGpus())) {
        for (String part : n.advertisedGpus().split(", ")) {
          int c = part.lastIndexOf(": ");
          advertised += Integer.parseInt(part.substring(c + 2));
        }
      }
    }
    k.physicalGpus(physical).advertisedGpuUnits(advertised).gpuNodesWithoutAllocatableGpus(zero);
  }

  /**
   * Money from the rows (exact cents); GPU-hours from the unrounded per-node figures ({@code gpu}:
   * capacity, requested, idle), as the rows round each to 3 decimals.
   */
  static CostReport.Reconciliation reconcile(List<NodeCost> nodes, List<Row> rows, double[] gpu) {
    BigDecimal nodeCost = BigDecimal.ZERO;
    for (NodeCost n : nodes) {
      nodeCost = nodeCost.add(n.effectiveCost());
    }
    BigDecimal allocated = BigDecimal.ZERO;
    BigDecimal idle = BigDecimal.ZERO;
    for (Row r : rows) {
      if (CostReport.IDLE.equals(r.namespace())) {
        idle = idle.add(r.effectiveCost());
      } else {
        allocated = allocated.add(r.effectiveCost());
      }
    }
    double cap = gpu[0];
    double req = gpu[1];
    double idleH = gpu[2];
    boolean balanced =
        allocated.add(idle).compareTo(nodeCost) == 0
            && Math.abs(req + idleH - cap) <= Math.max(1e-6, cap * 1e-9);
    return new CostReport.Reconciliation(
        nodeCost, allocated, idle, round3(cap), round3(req), round3(idleH), balanced);
  }

  private static double ratio(double a, double b) {
    return b <= 0 ? 0 : round4(a / b);
  }

  private static double round4(double v) {
    return Math.round(v * 10000.0) / 10000.0;
  }
}

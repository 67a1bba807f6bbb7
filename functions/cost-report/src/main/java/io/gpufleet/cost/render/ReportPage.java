package io.gpufleet.cost.render;

import io.gpufleet.cost.model.CostReport;
import java.util.List;

/** What {@code cost.jte} renders: the report plus what the page computes from it. */
public record ReportPage(
    CostReport report,
    String currency,
    List<Kpi> kpis,
    List<Svg> hourlyCharts,
    Svg nodePoolChart,
    Svg spotChart,
    Svg idleChart,
    Svg idleTwoWaysChart,
    List<CostReport.GpuNode> gpuNodes,
    List<String> cpuOnlyRules,
    List<CostReport.CpuOnlyPod> cpuOnlyPods,
    List<CostReport.NodeCost> nodes,
    int nodeRows) {

  /** A key figure: its name and its formatted value. */
  public record Kpi(String name, String value) {}
}

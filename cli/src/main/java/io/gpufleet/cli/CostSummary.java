package io.gpufleet.cli;

import io.gpufleet.cost.model.CostOutcome;

/** The few lines the CLI prints after a cost report. */
final class CostSummary {
  private CostSummary() {}

  static String render(CostOutcome o) {
    if (o.status() == CostOutcome.Status.REJECTED) {
      return "REJECTED: " + o.message();
    }
    var t = new Table("FIGURE", "VALUE");
    t.add("window", o.window() + " (" + o.windowStart() + " .. " + o.windowEnd() + ")");
    t.add("total cost", o.currency() + " " + o.totalCost());
    t.add("On-Demand equivalent", o.currency() + " " + o.onDemandEquivalentCost());
    t.add("Spot savings", o.currency() + " " + o.spotSavings());
    t.add(
        "cost per GPU-hour (whole node)",
        o.costPerGpuHour() == null ? "-" : o.currency() + " " + o.costPerGpuHour());
    t.add("idle GPU", o.idleGpuPercent() + " % (" + o.currency() + " " + o.idleGpuCost() + ")");
    t.add("projected month total", o.currency() + " " + o.projectedMonthTotal());
    t.add("nodes / pods", o.nodes() + " / " + o.pods());
    t.add("nodes without EC2 match", o.nodesWithoutEc2Match());
    t.add("price sources", o.priceSources());
    t.add("Pricing API calls", o.pricingApiCalls());
    t.add("allocation rule", o.allocationRule());
    var sb = new StringBuilder(t.render());
    o.warnings().forEach(w -> sb.append("warning: ").append(w).append('\n'));
    o.outputs().forEach((k, v) -> sb.append(k).append(": ").append(v).append('\n'));
    sb.append("cost.html written to ").append(o.outputs().get("html")).append('\n');
    return sb.toString();
  }
}

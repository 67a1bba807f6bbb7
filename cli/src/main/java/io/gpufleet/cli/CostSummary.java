package io.gpufleet.cli;

import io.gpufleet.cost.model.CostOutcome;

/** The few lines the CLI prints after a cost report. */
final class CostSummary {
  private CostSummary() {}

  static String render(CostOutcome o) {
    if (o.clusters() == null) {
      return renderOne(o);
    }
    // several clusters in one run: a line each, then each cluster's figures
    var t = new Table("CLUSTER", "STATUS", "TOTAL", "NODES / PODS");
    for (CostOutcome c : o.clusters()) {
      t.add(
          c.cluster(),
          c.status(),
          c.totalCost() == null ? "-" : c.currency() + " " + c.totalCost(),
          c.nodes() == null ? "-" : c.nodes() + " / " + c.pods());
    }
    var sb = new StringBuilder(t.render());
    for (CostOutcome c : o.clusters()) {
      sb.append("\ncluster ").append(c.cluster()).append(":\n").append(renderOne(c));
    }
    return sb.toString();
  }

  private static String renderOne(CostOutcome o) {
    if (o.status() == CostOutcome.Status.REJECTED) {
      return "REJECTED: " + o.message();
    }
    if (o.status() == CostOutcome.Status.FAILED) {
      return "FAILED: " + o.message() + "\n";
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

  /** GPUs on one physical truth, commitments, utilisation, tokens and the report's own check. */
  static String gpu(io.gpufleet.cost.model.CostReport r) {
    if (r == null) {
      return "";
    }
    var k = r.kpis();
    String cur = r.header().currency();
    var t =
        new Table("GPU NODE", "TYPE", "PHYSICAL", "ADVERTISED", "SHARING", "REQ. GPU-h", "UTIL.");
    for (var g : r.gpuSharing()) {
      t.add(
          g.node(),
          g.instanceType(),
          g.physicalGpus(),
          g.advertised(),
          g.sharing() + (g.replicas() > 1 ? " x" + g.replicas() : ""),
          String.format(
              java.util.Locale.ROOT, "%.1f / %.1f", g.gpuRequestedHours(), g.gpuCapacityHours()),
          g.utilisationPercent() == null
              ? "-"
              : String.format(java.util.Locale.ROOT, "%.0f %%", g.utilisationPercent()));
    }
    var sb = new StringBuilder(t.render());
    r.gpuSharing().stream()
        .filter(g -> !g.flags().isEmpty())
        .forEach(
            g ->
                sb.append("flag: ")
                    .append(g.node())
                    .append(": ")
                    .append(String.join("; ", g.flags()))
                    .append('\n'));
    reservations(r, sb);
    var f = new Table("FIGURE", "VALUE");
    f.add("physical GPUs / advertised units", k.physicalGpus() + " / " + k.advertisedGpuUnits());
    f.add("commitments saved", cur + " " + k.commitmentSavings());
    f.add(
        "GPU utilisation (measured)",
        k.gpuUtilisationPercent() == null ? "no data" : k.gpuUtilisationPercent() + " %");
    f.add(
        "idle GPU cost: not requested / not used",
        cur
            + " "
            + k.idleGpuCost()
            + " / "
            + (k.utilisationIdleGpuCost() == null
                ? "no data"
                : cur + " " + k.utilisationIdleGpuCost()));
    f.add(
        "cost per 1M output tokens",
        k.costPerMillionOutputTokens() == null
            ? "no token data"
            : cur + " " + k.costPerMillionOutputTokens());
    f.add("CPU-only pods on GPU nodes", k.cpuOnlyPodsOnGpuNodes() + " " + k.cpuOnlyPodCostByRule());
    var rec = r.reconciliation();
    f.add(
        "reconciliation",
        String.format(
            java.util.Locale.ROOT,
            "allocated %s + idle %s = node cost %s; requested %.2f + idle %.2f = %.2f physical"
                + " GPU-h: %s",
            rec.allocated(),
            rec.idle(),
            rec.nodeCost(),
            rec.requestedGpuHours(),
            rec.idleGpuHours(),
            rec.physicalGpuHours(),
            rec.balanced() ? "balanced" : "NOT BALANCED"));
    sb.append(f.render());
    r.header()
        .dataSources()
        .forEach((name, v) -> sb.append(name).append(": ").append(v).append('\n'));
    return sb.toString();
  }

  /**
   * Nodes in On-Demand Capacity Reservations: billed at the On-Demand rate, which the commitments
   * covering them discount; their rate and FOCUS PricingCategory.
   */
  private static void reservations(io.gpufleet.cost.model.CostReport r, StringBuilder sb) {
    var reserved = r.nodes().stream().filter(n -> "reserved".equals(n.capacityType())).toList();
    if (reserved.isEmpty()) {
      return;
    }
    var t =
        new Table(
            "RESERVATION NODE", "TYPE", "ON-DEMAND /h", "EFFECTIVE /h", "CATEGORY", "PRICE SOURCE");
    for (var n : reserved) {
      t.add(
          n.nodeName() == null ? n.id() : n.nodeName(),
          n.instanceType(),
          n.onDemandPerHour() == null ? "-" : n.onDemandPerHour().toPlainString(),
          n.effectivePerHour() == null ? "-" : n.effectivePerHour().toPlainString(),
          n.pricingCategory(),
          n.priceSource());
    }
    sb.append(t.render());
  }
}

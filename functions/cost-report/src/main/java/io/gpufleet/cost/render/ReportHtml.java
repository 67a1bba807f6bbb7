package io.gpufleet.cost.render;

import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.CostReport.Rollup;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * cost.html: one self-contained page (inline CSS and SVG, no scripts, no external resources) with
 * the header, the KPIs, three charts (cost by NodePool, Spot vs On-Demand, idle GPU) and the rollup
 * and node tables.
 */
public final class ReportHtml {
  static final int NODE_ROWS = 200;
  private static final int CHART_W = 720;
  private static final int LABEL_W = 200;
  private static final int BAR_H = 22;

  private ReportHtml() {}

  public static byte[] html(CostReport r) {
    var h = r.header();
    var k = r.kpis();
    var sb = new StringBuilder(64 * 1024);
    String cur = h.currency();
    sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>GPU cost report ")
        .append(esc(h.cluster()))
        .append(" ")
        .append(esc(h.window()))
        .append("</title><style>")
        .append(
            "body{font-family:system-ui,sans-serif;margin:24px;color:#1b1f24}"
                + "h1{font-size:22px}h2{font-size:17px;margin-top:28px}"
                + ".kpis{display:flex;flex-wrap:wrap;gap:12px}"
                + ".kpi{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;min-width:150px}"
                + ".kpi b{display:block;font-size:18px}"
                + "table{border-collapse:collapse;font-size:13px;margin-top:8px}"
                + "table.fit{font-size:12px}table.fit td,table.fit th{padding:3px 5px}"
                + "td,th{border-bottom:1px solid #eaeef2;padding:3px 8px;text-align:right}"
                + "td:first-child,th:first-child{text-align:left}"
                + ".muted{color:#57606a;font-size:13px}svg text{font-size:12px}"
                + ".spot{fill:#2da44e}.on-demand{fill:#0969da}.reserved{fill:#8250df}"
                + ".capacity-block{fill:#bf8700}.list{fill:#afb8c1}.bar{fill:#0969da}"
                + ".requested{fill:#0969da}.idle{fill:#cf222e}.used{fill:#2da44e}"
                + ".unused{fill:#fd8c73}.s0{fill:#0969da}.s1{fill:#2da44e}.s2{fill:#8250df}"
                + ".s3{fill:#bf8700}.s4{fill:#cf222e}.s5{fill:#1b7c83}.s6{fill:#bc4c00}"
                + ".s7{fill:#6e7781}"
                + ".wide{overflow-x:auto;max-width:100%}svg.chart{max-width:100%;height:auto}"
                + "table.fit td,table.fit th{white-space:nowrap}"
                + "table.fit td.notes{white-space:normal;min-width:16em;max-width:40em;"
                + "text-align:left}"
                + ".flag{color:#cf222e}.ok{color:#1a7f37}"
                + "dl.sources{display:grid;grid-template-columns:max-content auto;gap:2px 12px;"
                + "font-size:13px}dl.sources dt{font-weight:600}dl.sources dd{margin:0}")
        .append("</style></head><body>\n");
    sb.append("<h1>GPU cost report: ").append(esc(h.cluster())).append("</h1>\n");
    sb.append("<p class=\"muted\">Window <b>")
        .append(esc(h.window()))
        .append("</b>: ")
        .append(h.windowStart())
        .append(" to ")
        .append(h.windowEnd())
        .append(" (UTC) · region ")
        .append(esc(h.region()))
        .append(" · generated ")
        .append(h.generatedAt())
        .append(" · currency ")
        .append(esc(cur))
        .append("</p>\n");
    sb.append("<p class=\"muted\" id=\"allocation-rule\">Allocation rule <b>")
        .append(esc(h.allocationRule()))
        .append("</b>: ")
        .append(esc(h.allocationRuleDescription()))
        .append("</p>\n");
    sb.append("<p class=\"muted\">Price sources: ")
        .append(esc(h.priceSources().toString()))
        .append(" · static table as of ")
        .append(esc(h.staticPricesAsOf()))
        .append("</p>\n");

    sb.append("<dl class=\"sources\" id=\"data-sources\">");
    h.dataSources()
        .forEach(
            (name, v) ->
                sb.append("<dt>")
                    .append(esc(name))
                    .append("</dt><dd>")
                    .append(esc(v))
                    .append("</dd>"));
    sb.append("</dl>\n");

    sb.append("<h2>Key figures</h2><div class=\"kpis\">");
    kpi(sb, "Total cost", money(k.totalCost(), cur));
    kpi(sb, "On-Demand equivalent", money(k.onDemandEquivalentCost(), cur));
    kpi(sb, "Spot savings", money(k.spotSavings(), cur));
    kpi(sb, "Spot share (node-hours)", pct(k.spotShareOfNodeHours()));
    kpi(
        sb,
        "Cost per GPU-hour (whole node)",
        k.costPerGpuHour() == null ? "-" : money(k.costPerGpuHour(), cur));
    kpi(sb, "Idle GPU", String.format(Locale.ROOT, "%.2f %%", k.idleGpuPercent()));
    kpi(sb, "Idle GPU cost", money(k.idleGpuCost(), cur));
    kpi(sb, "Run rate / hour", money(k.runRatePerHour(), cur));
    kpi(sb, "Projected month total", money(k.projectedMonthTotal(), cur));
    kpi(sb, "Nodes / pods", k.nodes() + " / " + k.pods());
    kpi(sb, "Commitments saved", money(k.commitmentSavings(), cur));
    kpi(sb, "Physical GPUs / advertised units", k.physicalGpus() + " / " + k.advertisedGpuUnits());
    kpi(
        sb,
        "GPU utilisation (measured)",
        k.gpuUtilisationPercent() == null
            ? "no data"
            : String.format(Locale.ROOT, "%.1f %%", k.gpuUtilisationPercent()));
    kpi(
        sb,
        "Idle GPU cost by utilisation",
        k.utilisationIdleGpuCost() == null ? "no data" : money(k.utilisationIdleGpuCost(), cur));
    kpi(
        sb,
        "Cost per 1M output tokens",
        k.costPerMillionOutputTokens() == null
            ? "no token data"
            : money(k.costPerMillionOutputTokens(), cur));
    kpi(sb, "CPU-only pods on GPU nodes", Integer.toString(k.cpuOnlyPodsOnGpuNodes()));
    if (k.gpuNodesWithoutAllocatableGpus() > 0) {
      kpi(
          sb,
          "GPU nodes with 0 allocatable GPUs",
          Integer.toString(k.gpuNodesWithoutAllocatableGpus()));
    }
    sb.append("</div>\n");
    var rec = r.reconciliation();
    sb.append("<p class=\"muted\" id=\"reconciliation\">Reconciliation: allocated ")
        .append(esc(money(rec.allocated(), cur)))
        .append(" + idle ")
        .append(esc(money(rec.idle(), cur)))
        .append(" = node cost ")
        .append(esc(money(rec.nodeCost(), cur)))
        .append("; requested ")
        .append(num(rec.requestedGpuHours()))
        .append(" + idle ")
        .append(num(rec.idleGpuHours()))
        .append(" = ")
        .append(num(rec.physicalGpuHours()))
        .append(" physical GPU-hours <b class=\"")
        .append(rec.balanced() ? "ok\">balanced" : "flag\">NOT balanced")
        .append("</b></p>\n");

    sb.append("<h2>Cost over time by NodePool / node group</h2>\n");
    hourlyChart(sb, "chart-hourly-pool", r.hourly(), true, cur);
    sb.append("<h2>Cost over time by capacity type</h2>\n");
    hourlyChart(sb, "chart-hourly-capacity", r.hourly(), false, cur);

    var pools = r.rollups().get("nodePool");
    sb.append("<h2>Cost by NodePool / node group</h2>\n");
    barChart(sb, "chart-nodepool", pools, cur);
    sb.append("<h2>Spot vs On-Demand</h2>\n");
    spotChart(sb, r.rollups().get("capacityType"), k, cur);
    sb.append("<h2>Idle GPU by NodePool</h2>\n");
    idleChart(sb, pools);
    sb.append("<h2>Idle two ways: not requested vs not used</h2>\n");
    idleTwoWays(sb, r.gpuSharing());

    sb.append("<h2>GPU sharing: physical vs advertised</h2>\n");
    gpuSharingTable(sb, r.gpuSharing());
    sb.append("<h2>Cost per million output tokens</h2>\n");
    tokenTable(sb, r.tokens(), cur);
    sb.append("<h2>CPU-only pods on GPU nodes</h2>\n");
    cpuOnlyTable(sb, r.cpuOnlyPodsOnGpuNodes(), k, cur);

    for (var e : r.rollups().entrySet()) {
      sb.append("<h2>By ").append(esc(e.getKey())).append("</h2>\n");
      rollupTable(sb, e.getValue(), cur);
    }
    sb.append("<h2>Nodes</h2>\n");
    if (r.nodes().size() > NODE_ROWS) {
      sb.append("<p class=\"muted\">The ")
          .append(NODE_ROWS)
          .append(" most expensive of ")
          .append(r.nodes().size())
          .append(" nodes; cost.json and cost.csv have all.</p>");
    }
    sb.append(
        "<div class=\"wide\"><table id=\"nodes\" class=\"fit\"><tr><th>node</th>"
            + "<th>type</th><th>capacity</th><th>pool</th><th>hours</th>"
            + "<th>GPUs</th><th>sharing</th><th>GPU-h</th><th>req. GPU-h</th>"
            + "<th>util.</th><th>list /h</th><th>paid /h</th>"
            + "<th>cost</th><th>idle</th><th>price source</th><th>notes</th></tr>");
    for (var n : r.nodes().subList(0, Math.min(NODE_ROWS, r.nodes().size()))) {
      sb.append("<tr><td title=\"")
          .append(esc(n.id() + " in " + n.zone()))
          .append("\">")
          .append(esc(n.nodeName() == null ? n.id() : n.nodeName()))
          .append("</td><td>")
          .append(esc(n.instanceType()))
          .append("</td><td>")
          .append(esc(n.capacityType()))
          .append("</td><td>")
          .append(esc(n.nodePool()))
          .append("</td><td>")
          .append(num(n.hours()))
          .append("</td><td>")
          .append(n.accelerators())
          .append("</td><td>")
          .append(esc(n.gpuSharing() == null ? "-" : n.gpuSharing()))
          .append("</td><td>")
          .append(num(n.gpuCapacityHours()))
          .append("</td><td>")
          .append(num(n.gpuRequestedHours()))
          .append("</td><td>")
          .append(
              n.utilisationPercent() == null
                  ? "-"
                  : String.format(Locale.ROOT, "%.0f %%", n.utilisationPercent()))
          .append("</td><td>")
          .append(money(n.onDemandPerHour(), cur))
          .append("</td><td>")
          .append(money(n.effectivePerHour(), cur))
          .append("</td><td>")
          .append(money(n.effectiveCost(), cur))
          .append("</td><td>")
          .append(money(n.idleCost(), cur))
          .append("</td><td")
          .append(n.priceDetail() == null ? ">" : " title=\"" + esc(n.priceDetail()) + "\">")
          .append(esc(n.priceSource()))
          .append("</td><td class=\"muted notes\">")
          .append(esc(String.join("; ", n.notes())))
          .append("</td></tr>");
    }
    sb.append("</table></div>\n");
    if (!h.notes().isEmpty()) {
      sb.append("<h2>Notes</h2><ul>");
      h.notes().forEach(n -> sb.append("<li>").append(esc(n)).append("</li>"));
      sb.append("</ul>");
    }
    sb.append("</body></html>\n");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Stacked columns of cost per hour (or day), by NodePool or by capacity type. */
  static void hourlyChart(
      StringBuilder sb, String id, List<CostReport.HourCost> points, boolean byPool, String cur) {
    // the 7 costliest series keep their colour, the rest are "other"
    var totals = new java.util.HashMap<String, BigDecimal>();
    for (var p : points) {
      (byPool ? p.byNodePool() : p.byCapacityType())
          .forEach((k, v) -> totals.merge(k, v, BigDecimal::add));
    }
    var order =
        totals.entrySet().stream()
            .sorted(java.util.Map.Entry.<String, BigDecimal>comparingByValue().reversed())
            .map(java.util.Map.Entry::getKey)
            .toList();
    var shown = order.subList(0, Math.min(7, order.size()));
    int chartH = 180;
    int legendH = 20 * ((shown.size() + (order.size() > 7 ? 1 : 0) + 3) / 4) + 10;
    int height = chartH + 30 + legendH;
    open(sb, id, height, byPool ? "Cost per hour by NodePool" : "Cost per hour by capacity type");
    if (points.isEmpty() || totals.isEmpty()) {
      sb.append("<text x=\"10\" y=\"20\">no cost in the window</text></svg>\n");
      return;
    }
    double max = 0;
    for (var p : points) {
      double t = 0;
      for (var v : (byPool ? p.byNodePool() : p.byCapacityType()).values()) {
        t += v.doubleValue();
      }
      max = Math.max(max, t);
    }
    int left = 70;
    int plotW = CHART_W + LABEL_W - left - 10;
    double colW = (double) plotW / points.size();
    sb.append("<text x=\"0\" y=\"14\">")
        .append(esc(money(BigDecimal.valueOf(max).setScale(2, RoundingMode.HALF_EVEN), cur)))
        .append("</text><text x=\"0\" y=\"")
        .append(chartH)
        .append("\">0</text>");
    for (int i = 0; i < points.size(); i++) {
      var p = points.get(i);
      var values = byPool ? p.byNodePool() : p.byCapacityType();
      double y = chartH;
      double other = 0;
      for (var e : values.entrySet()) {
        if (!shown.contains(e.getKey())) {
          other += e.getValue().doubleValue();
        }
      }
      var series = new java.util.ArrayList<java.util.Map.Entry<String, Double>>();
      for (String k : shown) {
        var v = values.get(k);
        if (v != null && v.signum() > 0) {
          series.add(java.util.Map.entry(k, v.doubleValue()));
        }
      }
      if (other > 0) {
        series.add(java.util.Map.entry("(other)", other));
      }
      for (var e : series) {
        double h = max <= 0 ? 0 : (chartH - 10) * e.getValue() / max;
        if (h <= 0) {
          continue;
        }
        y -= h;
        int idx = shown.indexOf(e.getKey());
        sb.append("<rect class=\"s")
            .append(idx < 0 ? 7 : idx)
            .append("\" x=\"")
            .append(String.format(Locale.ROOT, "%.1f", left + i * colW))
            .append("\" y=\"")
            .append(String.format(Locale.ROOT, "%.1f", y))
            .append("\" width=\"")
            .append(String.format(Locale.ROOT, "%.1f", Math.max(1, colW - 1)))
            .append("\" height=\"")
            .append(String.format(Locale.ROOT, "%.1f", Math.max(0.5, h)))
            .append("\"><title>")
            .append(
                esc(
                    p.hour()
                        + " "
                        + e.getKey()
                        + ": "
                        + money(
                            BigDecimal.valueOf(e.getValue()).setScale(2, RoundingMode.HALF_EVEN),
                            cur)))
            .append("</title></rect>");
      }
    }
    // first and last bucket under the axis
    sb.append("<text x=\"")
        .append(left)
        .append("\" y=\"")
        .append(chartH + 16)
        .append("\">")
        .append(esc(points.get(0).hour().toString().substring(5, 16).replace('T', ' ')))
        .append("</text><text x=\"")
        .append(left + plotW - 80)
        .append("\" y=\"")
        .append(chartH + 16)
        .append("\">")
        .append(
            esc(points.get(points.size() - 1).hour().toString().substring(5, 16).replace('T', ' ')))
        .append("</text>");
    var legend = new java.util.ArrayList<>(shown);
    if (order.size() > 7) {
      legend.add("(other)");
    }
    for (int i = 0; i < legend.size(); i++) {
      int lx = (i % 4) * 230;
      int ly = chartH + 40 + (i / 4) * 20;
      int cls = i < shown.size() ? i : 7;
      sb.append("<rect class=\"s")
          .append(cls)
          .append("\" x=\"")
          .append(lx)
          .append("\" y=\"")
          .append(ly - 10)
          .append("\" width=\"10\" height=\"10\"></rect><text x=\"")
          .append(lx + 14)
          .append("\" y=\"")
          .append(ly)
          .append("\">")
          .append(esc(legend.get(i)))
          .append("</text>");
    }
    sb.append("</svg>\n");
  }

  /**
   * Per NodePool: the GPU capacity not requested (requested-idle) and the GPU capacity not used
   * (utilisation-idle, where utilisation was measured) as two bars in percent.
   */
  static void idleTwoWays(StringBuilder sb, List<CostReport.GpuNode> nodes) {
    var byPool = new java.util.TreeMap<String, double[]>();
    for (var n : nodes) {
      var a =
          byPool.computeIfAbsent(
              n.nodePool() == null ? "(none)" : n.nodePool(), k -> new double[4]);
      a[0] += n.gpuCapacityHours();
      a[1] += n.gpuRequestedHours();
      if (n.utilisationPercent() != null) {
        a[2] += n.gpuCapacityHours();
        a[3] += n.gpuCapacityHours() * n.utilisationPercent() / 100;
      }
    }
    byPool.values().removeIf(a -> a[0] <= 0);
    int rows = Math.max(1, byPool.size());
    int height = rows * (2 * BAR_H + 14) + 30;
    open(sb, "chart-idle-two-ways", height, "Idle GPU: not requested vs not used");
    if (byPool.isEmpty()) {
      sb.append("<text x=\"10\" y=\"20\">no GPU nodes in the window</text></svg>\n");
      return;
    }
    int y = 5;
    for (var e : byPool.entrySet()) {
      double[] a = e.getValue();
      double reqIdle = Math.max(0, 1 - a[1] / a[0]);
      sb.append("<text x=\"0\" y=\"")
          .append(y + 15)
          .append("\">")
          .append(esc(e.getKey()))
          .append("</text>");
      bar(sb, "requested", y, reqIdle, "not requested", 100);
      if (a[2] > 0) {
        double utilIdle = Math.max(0, 1 - a[3] / a[2]);
        bar(sb, "unused", y + BAR_H + 4, utilIdle, "not used (measured)", 100);
      } else {
        sb.append("<text x=\"")
            .append(LABEL_W)
            .append("\" y=\"")
            .append(y + BAR_H + 19)
            .append("\" class=\"muted\">utilisation: no data</text>");
      }
      y += 2 * BAR_H + 14;
    }
    sb.append("<rect class=\"requested\" x=\"0\" y=\"")
        .append(y + 2)
        .append("\" width=\"10\" height=\"10\"></rect><text x=\"14\" y=\"")
        .append(y + 12)
        .append("\">not requested (requested-idle)</text><rect class=\"unused\" x=\"260\" y=\"")
        .append(y + 2)
        .append("\" width=\"10\" height=\"10\"></rect><text x=\"274\" y=\"")
        .append(y + 12)
        .append("\">not used (utilisation-idle)</text></svg>\n");
  }

  private static void bar(
      StringBuilder sb, String cls, int y, double fraction, String what, int max) {
    int w = width(fraction * 100, max);
    if (w > 0) {
      sb.append("<rect class=\"")
          .append(cls)
          .append("\" x=\"")
          .append(LABEL_W)
          .append("\" y=\"")
          .append(y)
          .append("\" width=\"")
          .append(w)
          .append("\" height=\"")
          .append(BAR_H)
          .append("\"><title>")
          .append(esc(what))
          .append("</title></rect>");
    }
    sb.append("<text x=\"")
        .append(LABEL_W + w + 6)
        .append("\" y=\"")
        .append(y + 15)
        .append("\">")
        .append(String.format(Locale.ROOT, "%.1f %% %s", fraction * 100, esc(what)))
        .append("</text>");
  }

  private static void gpuSharingTable(StringBuilder sb, List<CostReport.GpuNode> nodes) {
    if (nodes.isEmpty()) {
      sb.append("<p class=\"muted\">No GPU nodes in the window.</p>\n");
      return;
    }
    sb.append(
        "<div class=\"wide\"><table id=\"gpu-sharing\" class=\"fit\"><tr><th>node</th><th>type</th>"
            + "<th>pool</th><th>physical GPUs</th><th>advertised</th><th>advertised as GPUs</th>"
            + "<th>sharing</th><th>GPU-h</th><th>requested GPU-h</th><th>util.</th>"
            + "<th>flags</th></tr>");
    for (var n : nodes.subList(0, Math.min(NODE_ROWS, nodes.size()))) {
      sb.append("<tr><td>")
          .append(esc(n.node()))
          .append("</td><td>")
          .append(esc(n.instanceType()))
          .append("</td><td>")
          .append(esc(n.nodePool()))
          .append("</td><td>")
          .append(n.physicalGpus())
          .append("</td><td>")
          .append(esc(n.advertised()))
          .append("</td><td>")
          .append(num(n.advertisedPhysicalGpus()))
          .append("</td><td>")
          .append(esc(n.sharing() + (n.replicas() > 1 ? " x" + n.replicas() : "")))
          .append("</td><td>")
          .append(num(n.gpuCapacityHours()))
          .append("</td><td>")
          .append(num(n.gpuRequestedHours()))
          .append("</td><td>")
          .append(
              n.utilisationPercent() == null
                  ? "-"
                  : String.format(Locale.ROOT, "%.0f %%", n.utilisationPercent()))
          .append("</td><td class=\"notes flag\">")
          .append(esc(String.join("; ", n.flags())))
          .append("</td></tr>");
    }
    sb.append("</table></div>\n");
  }

  private static void tokenTable(StringBuilder sb, List<CostReport.TokenCost> tokens, String cur) {
    if (tokens.isEmpty()) {
      sb.append(
          "<p class=\"muted\" id=\"tokens-none\">No token counters: see data sources above.</p>\n");
      return;
    }
    sb.append(
        "<table id=\"tokens\" class=\"fit\"><tr><th>model</th><th>namespace</th><th>server</th>"
            + "<th>output tokens</th><th>cost</th><th>per 1M tokens</th><th>attributed by</th></tr>");
    for (var t : tokens) {
      sb.append("<tr><td>")
          .append(esc(t.model()))
          .append("</td><td>")
          .append(esc(t.namespace()))
          .append("</td><td>")
          .append(esc(t.server()))
          .append("</td><td>")
          .append(String.format(Locale.ROOT, "%,.0f", t.outputTokens()))
          .append("</td><td>")
          .append(money(t.cost(), cur))
          .append("</td><td>")
          .append(money(t.costPerMillionTokens(), cur))
          .append("</td><td>")
          .append(esc(t.attribution()))
          .append("</td></tr>");
    }
    sb.append("</table>\n");
  }

  private static void cpuOnlyTable(
      StringBuilder sb, List<CostReport.CpuOnlyPod> pods, CostReport.Kpis k, String cur) {
    if (pods.isEmpty()) {
      sb.append("<p class=\"muted\">None.</p>\n");
      return;
    }
    var rules = new java.util.ArrayList<>(k.cpuOnlyPodCostByRule().keySet());
    sb.append("<p class=\"muted\">")
        .append(k.cpuOnlyPodsOnGpuNodes())
        .append(" pods request no GPU on a GPU node. Their cost under each allocation rule:");
    k.cpuOnlyPodCostByRule()
        .forEach(
            (rule, c) ->
                sb.append(" ")
                    .append(esc(rule))
                    .append(" ")
                    .append(esc(money(c, cur)))
                    .append(";"));
    sb.append(" the 50 costliest below.</p>");
    sb.append(
        "<div class=\"wide\"><table id=\"cpu-only\" class=\"fit\"><tr><th>namespace</th><th>pod</th>"
            + "<th>node</th><th>type</th><th>hours</th>");
    rules.forEach(r -> sb.append("<th>").append(esc(r)).append("</th>"));
    sb.append("</tr>");
    for (var p : pods.subList(0, Math.min(50, pods.size()))) {
      sb.append("<tr><td>")
          .append(esc(p.namespace()))
          .append("</td><td>")
          .append(esc(p.pod()))
          .append("</td><td>")
          .append(esc(p.node()))
          .append("</td><td>")
          .append(esc(p.instanceType()))
          .append("</td><td>")
          .append(num(p.hours()))
          .append("</td>");
      rules.forEach(
          r -> sb.append("<td>").append(money(p.costByRule().get(r), cur)).append("</td>"));
      sb.append("</tr>");
    }
    sb.append("</table></div>\n");
  }

  private static void kpi(StringBuilder sb, String name, String value) {
    sb.append("<div class=\"kpi\"><span class=\"muted\">")
        .append(esc(name))
        .append("</span><b>")
        .append(esc(value))
        .append("</b></div>");
  }

  /** Horizontal bars, one per group (at most 12), width proportional to cost. */
  static void barChart(StringBuilder sb, String id, List<Rollup> groups, String cur) {
    var shown = groups.subList(0, Math.min(12, groups.size()));
    double max = shown.stream().mapToDouble(g -> g.effectiveCost().doubleValue()).max().orElse(0);
    int height = Math.max(1, shown.size()) * (BAR_H + 6) + 10;
    open(sb, id, height, "Cost by NodePool");
    if (shown.isEmpty()) {
      sb.append("<text x=\"10\" y=\"20\">no nodes in the window</text>");
    }
    int y = 5;
    for (Rollup g : shown) {
      double v = g.effectiveCost().doubleValue();
      sb.append("<text x=\"0\" y=\"")
          .append(y + 15)
          .append("\">")
          .append(esc(g.key()))
          .append("</text>");
      sb.append("<rect class=\"bar\" x=\"")
          .append(LABEL_W)
          .append("\" y=\"")
          .append(y)
          .append("\" width=\"")
          .append(width(v, max))
          .append("\" height=\"")
          .append(BAR_H)
          .append("\"><title>")
          .append(esc(g.key() + ": " + money(g.effectiveCost(), cur)))
          .append("</title></rect>");
      sb.append("<text x=\"")
          .append(LABEL_W + width(v, max) + 6)
          .append("\" y=\"")
          .append(y + 15)
          .append("\">")
          .append(esc(money(g.effectiveCost(), cur)))
          .append("</text>");
      y += BAR_H + 6;
    }
    sb.append("</svg>\n");
  }

  /** One stacked bar of what was paid by capacity type, above one bar of the On-Demand cost. */
  static void spotChart(StringBuilder sb, List<Rollup> byType, CostReport.Kpis k, String cur) {
    double list = k.onDemandEquivalentCost().doubleValue();
    double max = Math.max(list, k.totalCost().doubleValue());
    open(sb, "chart-spot", 2 * (BAR_H + 6) + 40, "Spot vs On-Demand");
    sb.append("<text x=\"0\" y=\"20\">paid</text>");
    int x = LABEL_W;
    for (Rollup t : byType) {
      int w = width(t.effectiveCost().doubleValue(), max);
      if (w == 0) {
        continue;
      }
      sb.append("<rect class=\"")
          .append(esc(t.key()))
          .append("\" x=\"")
          .append(x)
          .append("\" y=\"5\" width=\"")
          .append(w)
          .append("\" height=\"")
          .append(BAR_H)
          .append("\"><title>")
          .append(esc(t.key() + ": " + money(t.effectiveCost(), cur)))
          .append("</title></rect>");
      x += w;
    }
    sb.append("<text x=\"0\" y=\"")
        .append(BAR_H + 26)
        .append("\">all On-Demand</text><rect class=\"list\" x=\"")
        .append(LABEL_W)
        .append("\" y=\"")
        .append(BAR_H + 11)
        .append("\" width=\"")
        .append(width(list, max))
        .append("\" height=\"")
        .append(BAR_H)
        .append("\"><title>")
        .append(esc("On-Demand equivalent: " + money(k.onDemandEquivalentCost(), cur)))
        .append("</title></rect>");
    int ly = 2 * (BAR_H + 6) + 25;
    int lx = 0;
    for (Rollup t : byType) {
      sb.append("<rect class=\"")
          .append(esc(t.key()))
          .append("\" x=\"")
          .append(lx)
          .append("\" y=\"")
          .append(ly - 10)
          .append("\" width=\"10\" height=\"10\"></rect><text x=\"")
          .append(lx + 14)
          .append("\" y=\"")
          .append(ly)
          .append("\">")
          .append(esc(t.key() + " " + money(t.effectiveCost(), cur)))
          .append("</text>");
      lx += 180;
    }
    sb.append("<text x=\"")
        .append(lx)
        .append("\" y=\"")
        .append(ly)
        .append("\">")
        .append(esc("Spot saved " + money(k.spotSavings(), cur)))
        .append("</text></svg>\n");
  }

  /** Requested and idle GPU-hours per NodePool (stacked to the pool's capacity). */
  static void idleChart(StringBuilder sb, List<Rollup> pools) {
    var gpuPools = pools.stream().filter(p -> p.gpuHours() > 0).limit(12).toList();
    double max = gpuPools.stream().mapToDouble(Rollup::gpuHours).max().orElse(0);
    int height = Math.max(1, gpuPools.size()) * (BAR_H + 6) + 10;
    open(sb, "chart-idle", height, "Idle GPU-hours by NodePool");
    if (gpuPools.isEmpty()) {
      sb.append("<text x=\"10\" y=\"20\">no GPU nodes in the window</text>");
    }
    int y = 5;
    for (Rollup p : gpuPools) {
      double req = Math.min(p.gpuRequestedHours(), p.gpuHours());
      double idle = p.gpuHours() - req;
      int wr = width(req, max);
      int wi = width(idle, max);
      sb.append("<text x=\"0\" y=\"")
          .append(y + 15)
          .append("\">")
          .append(esc(p.key()))
          .append("</text>");
      if (wr > 0) {
        sb.append("<rect class=\"requested\" x=\"")
            .append(LABEL_W)
            .append("\" y=\"")
            .append(y)
            .append("\" width=\"")
            .append(wr)
            .append("\" height=\"")
            .append(BAR_H)
            .append("\"><title>requested ")
            .append(num(req))
            .append(" GPU-h</title></rect>");
      }
      if (wi > 0) {
        sb.append("<rect class=\"idle\" x=\"")
            .append(LABEL_W + wr)
            .append("\" y=\"")
            .append(y)
            .append("\" width=\"")
            .append(wi)
            .append("\" height=\"")
            .append(BAR_H)
            .append("\"><title>idle ")
            .append(num(idle))
            .append(" GPU-h</title></rect>");
      }
      sb.append("<text x=\"")
          .append(LABEL_W + wr + wi + 6)
          .append("\" y=\"")
          .append(y + 15)
          .append("\">")
          .append(
              String.format(
                  Locale.ROOT, "%.1f %% idle", p.gpuHours() > 0 ? 100 * idle / p.gpuHours() : 0))
          .append("</text>");
      y += BAR_H + 6;
    }
    sb.append("</svg>\n");
  }

  private static void open(StringBuilder sb, String id, int height, String title) {
    sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"")
        .append(id)
        .append("\" role=\"img\" width=\"")
        .append(CHART_W + LABEL_W)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(CHART_W + LABEL_W)
        .append(' ')
        .append(height)
        .append("\"><title>")
        .append(esc(title))
        .append("</title>");
  }

  /** Bar width in pixels; anything above zero gets at least 2 px so it stays visible. */
  static int width(double value, double max) {
    if (value <= 0 || max <= 0) {
      return 0;
    }
    return Math.max(2, (int) Math.round((CHART_W - 120) * value / max));
  }

  private static void rollupTable(StringBuilder sb, List<Rollup> rows, String cur) {
    sb.append(
        "<table><tr><th>group</th><th>cost</th><th>On-Demand equivalent</th><th>node-hours</th>"
            + "<th>GPU-hours</th><th>requested GPU-hours</th></tr>");
    for (Rollup g : rows) {
      sb.append("<tr><td>")
          .append(esc(g.key()))
          .append("</td><td>")
          .append(money(g.effectiveCost(), cur))
          .append("</td><td>")
          .append(money(g.listCost(), cur))
          .append("</td><td>")
          .append(num(g.nodeHours()))
          .append("</td><td>")
          .append(num(g.gpuHours()))
          .append("</td><td>")
          .append(num(g.gpuRequestedHours()))
          .append("</td></tr>");
    }
    sb.append("</table>\n");
  }

  static String money(BigDecimal v, String currency) {
    if (v == null) {
      return "-";
    }
    int scale = v.abs().compareTo(BigDecimal.TEN) < 0 && v.scale() > 2 ? 4 : 2;
    return String.format(
        Locale.ROOT, "%s %,." + scale + "f", currency, v.setScale(scale, RoundingMode.HALF_EVEN));
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%,.2f", v);
  }

  private static String pct(double fraction) {
    return String.format(Locale.ROOT, "%.1f %%", fraction * 100);
  }

  static String esc(String s) {
    if (s == null) {
      return "";
    }
    var out = new StringBuilder(s.length() + 8);
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}

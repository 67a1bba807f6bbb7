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
                + "td,th{border-bottom:1px solid #eaeef2;padding:3px 8px;text-align:right}"
                + "td:first-child,th:first-child{text-align:left}"
                + ".muted{color:#57606a;font-size:13px}svg text{font-size:12px}"
                + ".spot{fill:#2da44e}.on-demand{fill:#0969da}.reserved{fill:#8250df}"
                + ".capacity-block{fill:#bf8700}.list{fill:#afb8c1}.bar{fill:#0969da}"
                + ".requested{fill:#0969da}.idle{fill:#cf222e}")
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
    sb.append("</div>\n");

    var pools = r.rollups().get("nodePool");
    sb.append("<h2>Cost by NodePool / node group</h2>\n");
    barChart(sb, "chart-nodepool", pools, cur);
    sb.append("<h2>Spot vs On-Demand</h2>\n");
    spotChart(sb, r.rollups().get("capacityType"), k, cur);
    sb.append("<h2>Idle GPU by NodePool</h2>\n");
    idleChart(sb, pools);

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
        "<table id=\"nodes\"><tr><th>node</th><th>instance</th><th>type</th><th>capacity</th>"
            + "<th>zone</th><th>pool</th><th>hours</th><th>GPU-h</th><th>requested GPU-h</th>"
            + "<th>cost</th><th>idle</th><th>price source</th><th>notes</th></tr>");
    for (var n : r.nodes().subList(0, Math.min(NODE_ROWS, r.nodes().size()))) {
      sb.append("<tr><td>")
          .append(esc(n.nodeName() == null ? "-" : n.nodeName()))
          .append("</td><td>")
          .append(esc(n.id()))
          .append("</td><td>")
          .append(esc(n.instanceType()))
          .append("</td><td>")
          .append(esc(n.capacityType()))
          .append("</td><td>")
          .append(esc(n.zone()))
          .append("</td><td>")
          .append(esc(n.nodePool()))
          .append("</td><td>")
          .append(num(n.hours()))
          .append("</td><td>")
          .append(num(n.gpuCapacityHours()))
          .append("</td><td>")
          .append(num(n.gpuRequestedHours()))
          .append("</td><td>")
          .append(money(n.effectiveCost(), cur))
          .append("</td><td>")
          .append(money(n.idleCost(), cur))
          .append("</td><td>")
          .append(esc(n.priceSource()))
          .append("</td><td class=\"muted\">")
          .append(esc(String.join("; ", n.notes())))
          .append("</td></tr>");
    }
    sb.append("</table>\n");
    if (!h.notes().isEmpty()) {
      sb.append("<h2>Notes</h2><ul>");
      h.notes().forEach(n -> sb.append("<li>").append(esc(n)).append("</li>"));
      sb.append("</ul>");
    }
    sb.append("</body></html>\n");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
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

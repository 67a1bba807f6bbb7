package io.gpufleet.cost.render;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.Utf8ByteOutput;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.CostReport.Rollup;
import io.gpufleet.cost.model.Kpis;
import io.gpufleet.cost.render.Svg.Rect;
import io.gpufleet.cost.render.Svg.Shape;
import io.gpufleet.cost.render.Svg.Text;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * cost.html: one self-contained page (inline CSS and SVG, no scripts, no external resources) with
 * the header, the KPIs, the charts (cost over time, cost by NodePool, Spot vs On-Demand, idle GPU)
 * and the tables. The markup is in the jte templates under {@code src/main/jte} (precompiled at
 * build time, HTML content type: the engine escapes every value); the numbers and the chart
 * geometry are computed here.
 */
public final class ReportHtml {
  static final int NODE_ROWS = 200;
  private static final int CHART_W = 720;
  private static final int LABEL_W = 200;
  private static final int BAR_H = 22;

  /** Loads the precompiled template classes from the classpath: no compiler at run time. */
  static final TemplateEngine ENGINE = TemplateEngine.createPrecompiled(ContentType.Html);

  private ReportHtml() {}

  public static byte[] html(CostReport r) {
    var out = new Utf8ByteOutput();
    ENGINE.render("cost.jte", page(r), out);
    return out.toByteArray();
  }

  static ReportPage page(CostReport r) {
    var k = r.kpis();
    String cur = r.header().currency();
    var kpis = new ArrayList<ReportPage.Kpi>();
    kpi(kpis, "Total cost", money(k.totalCost(), cur));
    kpi(kpis, "On-Demand equivalent", money(k.onDemandEquivalentCost(), cur));
    kpi(kpis, "Spot savings", money(k.spotSavings(), cur));
    kpi(kpis, "Spot share (node-hours)", pct(k.spotShareOfNodeHours()));
    kpi(
        kpis,
        "Cost per GPU-hour (whole node)",
        k.costPerGpuHour() == null ? "-" : money(k.costPerGpuHour(), cur));
    kpi(kpis, "Idle GPU", String.format(Locale.ROOT, "%.2f %%", k.idleGpuPercent()));
    kpi(kpis, "Idle GPU cost", money(k.idleGpuCost(), cur));
    kpi(kpis, "Run rate / hour", money(k.runRatePerHour(), cur));
    kpi(kpis, "Projected month total", money(k.projectedMonthTotal(), cur));
    kpi(kpis, "Nodes / pods", k.nodes() + " / " + k.pods());
    kpi(kpis, "Commitments saved", money(k.commitmentSavings(), cur));
    kpi(
        kpis,
        "Physical GPUs / advertised units",
        k.physicalGpus() + " / " + k.advertisedGpuUnits());
    kpi(
        kpis,
        "GPU utilisation (measured)",
        k.gpuUtilisationPercent() == null
            ? "no data"
            : String.format(Locale.ROOT, "%.1f %%", k.gpuUtilisationPercent()));
    kpi(
        kpis,
        "Idle GPU cost by utilisation",
        k.utilisationIdleGpuCost() == null ? "no data" : money(k.utilisationIdleGpuCost(), cur));
    kpi(
        kpis,
        "Cost per 1M output tokens",
        k.costPerMillionOutputTokens() == null
            ? "no token data"
            : money(k.costPerMillionOutputTokens(), cur));
    kpi(kpis, "CPU-only pods on GPU nodes", Integer.toString(k.cpuOnlyPodsOnGpuNodes()));
    if (k.gpuNodesWithoutAllocatableGpus() > 0) {
      kpi(
          kpis,
          "GPU nodes with 0 allocatable GPUs",
          Integer.toString(k.gpuNodesWithoutAllocatableGpus()));
    }
    var pools = r.rollups().get("nodePool");
    return new ReportPage(
        r,
        cur,
        List.copyOf(kpis),
        List.of(
            hourlyChart("chart-hourly-pool", r.hourly(), true, cur),
            hourlyChart("chart-hourly-capacity", r.hourly(), false, cur)),
        barChart("chart-nodepool", pools, cur),
        spotChart(r.rollups().get("capacityType"), k, cur),
        idleChart(pools),
        idleTwoWays(r.gpuSharing()),
        r.gpuSharing().subList(0, Math.min(NODE_ROWS, r.gpuSharing().size())),
        List.copyOf(k.cpuOnlyPodCostByRule().keySet()),
        r.cpuOnlyPodsOnGpuNodes().subList(0, Math.min(50, r.cpuOnlyPodsOnGpuNodes().size())),
        r.nodes().subList(0, Math.min(NODE_ROWS, r.nodes().size())),
        NODE_ROWS);
  }

  private static void kpi(List<ReportPage.Kpi> kpis, String name, String value) {
    kpis.add(new ReportPage.Kpi(name, value));
  }

  /** Stacked columns of cost per hour (or day), by NodePool or by capacity type. */
  static Svg hourlyChart(String id, List<CostReport.HourCost> points, boolean byPool, String cur) {
    // the 7 costliest series keep their colour, the rest are "other"
    var totals = new HashMap<String, BigDecimal>();
    for (var p : points) {
      (byPool ? p.byNodePool() : p.byCapacityType())
          .forEach((k, v) -> totals.merge(k, v, BigDecimal::add));
    }
    var order =
        totals.entrySet().stream()
            .sorted(Map.Entry.<String, BigDecimal>comparingByValue().reversed())
            .map(Map.Entry::getKey)
            .toList();
    var shown = order.subList(0, Math.min(7, order.size()));
    int chartH = 180;
    int legendH = 20 * ((shown.size() + (order.size() > 7 ? 1 : 0) + 3) / 4) + 10;
    int height = chartH + 30 + legendH;
    var s = new ArrayList<Shape>();
    String title = byPool ? "Cost per hour by NodePool" : "Cost per hour by capacity type";
    if (points.isEmpty() || totals.isEmpty()) {
      s.add(text(10, 20, "no cost in the window"));
      return svg(id, height, title, s);
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
    s.add(text(0, 14, money(BigDecimal.valueOf(max).setScale(2, RoundingMode.HALF_EVEN), cur)));
    s.add(text(0, chartH, "0"));
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
      var series = new ArrayList<Map.Entry<String, Double>>();
      for (String k : shown) {
        var v = values.get(k);
        if (v != null && v.signum() > 0) {
          series.add(Map.entry(k, v.doubleValue()));
        }
      }
      if (other > 0) {
        series.add(Map.entry("(other)", other));
      }
      for (var e : series) {
        double h = max <= 0 ? 0 : (chartH - 10) * e.getValue() / max;
        if (h <= 0) {
          continue;
        }
        y -= h;
        int idx = shown.indexOf(e.getKey());
        s.add(
            new Rect(
                "s" + (idx < 0 ? 7 : idx),
                f1(left + i * colW),
                f1(y),
                f1(Math.max(1, colW - 1)),
                f1(Math.max(0.5, h)),
                p.hour()
                    + " "
                    + e.getKey()
                    + ": "
                    + money(
                        BigDecimal.valueOf(e.getValue()).setScale(2, RoundingMode.HALF_EVEN),
                        cur)));
      }
    }
    // first and last bucket under the axis
    s.add(text(left, chartH + 16, axis(points.get(0))));
    s.add(text(left + plotW - 80, chartH + 16, axis(points.get(points.size() - 1))));
    var legend = new ArrayList<>(shown);
    if (order.size() > 7) {
      legend.add("(other)");
    }
    for (int i = 0; i < legend.size(); i++) {
      int lx = (i % 4) * 230;
      int ly = chartH + 40 + (i / 4) * 20;
      s.add(swatch("s" + (i < shown.size() ? i : 7), lx, ly - 10));
      s.add(text(lx + 14, ly, legend.get(i)));
    }
    return svg(id, height, title, s);
  }

  private static String axis(CostReport.HourCost p) {
    return p.hour().toString().substring(5, 16).replace('T', ' ');
  }

  /**
   * Per NodePool: the GPU capacity not requested (requested-idle) and the GPU capacity not used
   * (utilisation-idle, where utilisation was measured) as two bars in percent.
   */
  static Svg idleTwoWays(List<CostReport.GpuNode> nodes) {
    var byPool = new TreeMap<String, double[]>();
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
    var s = new ArrayList<Shape>();
    String title = "Idle GPU: not requested vs not used";
    if (byPool.isEmpty()) {
      s.add(text(10, 20, "no GPU nodes in the window"));
      return svg("chart-idle-two-ways", height, title, s);
    }
    int y = 5;
    for (var e : byPool.entrySet()) {
      double[] a = e.getValue();
      double reqIdle = Math.max(0, 1 - a[1] / a[0]);
      s.add(text(0, y + 15, e.getKey()));
      bar(s, "requested", y, reqIdle, "not requested", 100);
      if (a[2] > 0) {
        double utilIdle = Math.max(0, 1 - a[3] / a[2]);
        bar(s, "unused", y + BAR_H + 4, utilIdle, "not used (measured)", 100);
      } else {
        s.add(new Text(str(LABEL_W), str(y + BAR_H + 19), "muted", "utilisation: no data"));
      }
      y += 2 * BAR_H + 14;
    }
    s.add(swatch("requested", 0, y + 2));
    s.add(text(14, y + 12, "not requested (requested-idle)"));
    s.add(swatch("unused", 260, y + 2));
    s.add(text(274, y + 12, "not used (utilisation-idle)"));
    return svg("chart-idle-two-ways", height, title, s);
  }

  private static void bar(List<Shape> s, String cls, int y, double fraction, String what, int max) {
    int w = width(fraction * 100, max);
    if (w > 0) {
      s.add(new Rect(cls, str(LABEL_W), str(y), str(w), str(BAR_H), what));
    }
    s.add(
        text(
            LABEL_W + w + 6,
            y + 15,
            String.format(Locale.ROOT, "%.1f %% %s", fraction * 100, what)));
  }

  /** Horizontal bars, one per group (at most 12), width proportional to cost. */
  static Svg barChart(String id, List<Rollup> groups, String cur) {
    var shown = groups.subList(0, Math.min(12, groups.size()));
    double max = shown.stream().mapToDouble(g -> g.effectiveCost().doubleValue()).max().orElse(0);
    int height = Math.max(1, shown.size()) * (BAR_H + 6) + 10;
    var s = new ArrayList<Shape>();
    if (shown.isEmpty()) {
      s.add(text(10, 20, "no nodes in the window"));
    }
    int y = 5;
    for (Rollup g : shown) {
      double v = g.effectiveCost().doubleValue();
      s.add(text(0, y + 15, g.key()));
      s.add(
          new Rect(
              "bar",
              str(LABEL_W),
              str(y),
              str(width(v, max)),
              str(BAR_H),
              g.key() + ": " + money(g.effectiveCost(), cur)));
      s.add(text(LABEL_W + width(v, max) + 6, y + 15, money(g.effectiveCost(), cur)));
      y += BAR_H + 6;
    }
    return svg(id, height, "Cost by NodePool", s);
  }

  /** One stacked bar of what was paid by capacity type, above one bar of the On-Demand cost. */
  static Svg spotChart(List<Rollup> byType, Kpis k, String cur) {
    double list = k.onDemandEquivalentCost().doubleValue();
    double max = Math.max(list, k.totalCost().doubleValue());
    var s = new ArrayList<Shape>();
    s.add(text(0, 20, "paid"));
    int x = LABEL_W;
    for (Rollup t : byType) {
      int w = width(t.effectiveCost().doubleValue(), max);
      if (w == 0) {
        continue;
      }
      s.add(
          new Rect(
              t.key(),
              str(x),
              "5",
              str(w),
              str(BAR_H),
              t.key() + ": " + money(t.effectiveCost(), cur)));
      x += w;
    }
    s.add(text(0, BAR_H + 26, "all On-Demand"));
    s.add(
        new Rect(
            "list",
            str(LABEL_W),
            str(BAR_H + 11),
            str(width(list, max)),
            str(BAR_H),
            "On-Demand equivalent: " + money(k.onDemandEquivalentCost(), cur)));
    int ly = 2 * (BAR_H + 6) + 25;
    int lx = 0;
    for (Rollup t : byType) {
      s.add(swatch(t.key(), lx, ly - 10));
      s.add(text(lx + 14, ly, t.key() + " " + money(t.effectiveCost(), cur)));
      lx += 180;
    }
    s.add(text(lx, ly, "Spot saved " + money(k.spotSavings(), cur)));
    return svg("chart-spot", 2 * (BAR_H + 6) + 40, "Spot vs On-Demand", s);
  }

  /** Requested and idle GPU-hours per NodePool (stacked to the pool's capacity). */
  static Svg idleChart(List<Rollup> pools) {
    var gpuPools = pools.stream().filter(p -> p.gpuHours() > 0).limit(12).toList();
    double max = gpuPools.stream().mapToDouble(Rollup::gpuHours).max().orElse(0);
    int height = Math.max(1, gpuPools.size()) * (BAR_H + 6) + 10;
    var s = new ArrayList<Shape>();
    if (gpuPools.isEmpty()) {
      s.add(text(10, 20, "no GPU nodes in the window"));
    }
    int y = 5;
    for (Rollup p : gpuPools) {
      double req = Math.min(p.gpuRequestedHours(), p.gpuHours());
      double idle = p.gpuHours() - req;
      int wr = width(req, max);
      int wi = width(idle, max);
      s.add(text(0, y + 15, p.key()));
      if (wr > 0) {
        s.add(
            new Rect(
                "requested",
                str(LABEL_W),
                str(y),
                str(wr),
                str(BAR_H),
                "requested " + num(req) + " GPU-h"));
      }
      if (wi > 0) {
        s.add(
            new Rect(
                "idle",
                str(LABEL_W + wr),
                str(y),
                str(wi),
                str(BAR_H),
                "idle " + num(idle) + " GPU-h"));
      }
      s.add(
          text(
              LABEL_W + wr + wi + 6,
              y + 15,
              String.format(
                  Locale.ROOT, "%.1f %% idle", p.gpuHours() > 0 ? 100 * idle / p.gpuHours() : 0)));
      y += BAR_H + 6;
    }
    return svg("chart-idle", height, "Idle GPU-hours by NodePool", s);
  }

  private static Svg svg(String id, int height, String title, List<Shape> shapes) {
    return new Svg(id, CHART_W + LABEL_W, height, title, List.copyOf(shapes));
  }

  private static Text text(int x, int y, String text) {
    return new Text(str(x), str(y), null, text);
  }

  /** A 10 px legend square. */
  private static Rect swatch(String cls, int x, int y) {
    return new Rect(cls, str(x), str(y), "10", "10", null);
  }

  private static String str(int v) {
    return Integer.toString(v);
  }

  private static String f1(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  /** Bar width in pixels; anything above zero gets at least 2 px so it stays visible. */
  static int width(double value, double max) {
    if (value <= 0 || max <= 0) {
      return 0;
    }
    return Math.max(2, (int) Math.round((CHART_W - 120) * value / max));
  }

  /** "USD 1,234.56"; four decimals below 10 when the value has them. Used by the templates. */
  public static String money(BigDecimal v, String currency) {
    if (v == null) {
      return "-";
    }
    int scale = v.abs().compareTo(BigDecimal.TEN) < 0 && v.scale() > 2 ? 4 : 2;
    return String.format(
        Locale.ROOT, "%s %,." + scale + "f", currency, v.setScale(scale, RoundingMode.HALF_EVEN));
  }

  /** "1,234.56". Used by the templates. */
  public static String num(double v) {
    return String.format(Locale.ROOT, "%,.2f", v);
  }

  /** "37 %", or "-" when not measured. Used by the templates. */
  public static String wholePercent(Double v) {
    return v == null ? "-" : String.format(Locale.ROOT, "%.0f %%", v);
  }

  /** "240,000,000". Used by the templates. */
  public static String count(double v) {
    return String.format(Locale.ROOT, "%,.0f", v);
  }

  private static String pct(double fraction) {
    return String.format(Locale.ROOT, "%.1f %%", fraction * 100);
  }
}

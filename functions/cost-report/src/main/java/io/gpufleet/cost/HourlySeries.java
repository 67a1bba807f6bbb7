package io.gpufleet.cost;

import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.ReportWindow;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pure: spreads each node's cost over the UTC hours of the window in proportion to the time it ran
 * in each (a Spot node's price changes within the window are averaged over its span), by NodePool
 * and by capacity type. Windows longer than 31 days are bucketed by day instead.
 */
final class HourlySeries {
  private final Instant first;
  private final long bucketSeconds;
  private final int buckets;
  private final Map<String, double[]> byPool = new HashMap<>();
  private final Map<String, double[]> byType = new HashMap<>();

  HourlySeries(ReportWindow w) {
    long hours = Duration.between(w.start(), w.end()).toHours() + 2;
    this.bucketSeconds = hours > 31 * 24 ? 86_400 : 3_600;
    this.first = w.start().truncatedTo(bucketSeconds == 3_600 ? ChronoUnit.HOURS : ChronoUnit.DAYS);
    this.buckets =
        (int) ((Duration.between(first, w.end()).getSeconds() + bucketSeconds - 1) / bucketSeconds);
  }

  void add(Instant from, Instant to, BigDecimal cost, String pool, String capacityType) {
    double total = cost.doubleValue();
    long span = Duration.between(from, to).toMillis();
    if (total == 0 || span <= 0) {
      return;
    }
    double[] p = byPool.computeIfAbsent(pool, k -> new double[buckets]);
    double[] t = byType.computeIfAbsent(capacityType, k -> new double[buckets]);
    long fromMs = Duration.between(first, from).toMillis();
    long toMs = Duration.between(first, to).toMillis();
    long bucketMs = bucketSeconds * 1000;
    for (int b = (int) (fromMs / bucketMs); b < buckets && (long) b * bucketMs < toMs; b++) {
      long a = Math.max(fromMs, b * bucketMs);
      long z = Math.min(toMs, (b + 1) * bucketMs);
      if (z > a) {
        double part = total * (z - a) / span;
        p[b] += part;
        t[b] += part;
      }
    }
  }

  List<CostReport.HourCost> points() {
    var out = new ArrayList<CostReport.HourCost>(buckets);
    for (int b = 0; b < buckets; b++) {
      out.add(
          new CostReport.HourCost(
              first.plusSeconds(b * bucketSeconds), column(byPool, b), column(byType, b)));
    }
    return out;
  }

  private static Map<String, BigDecimal> column(Map<String, double[]> series, int b) {
    var out = new TreeMap<String, BigDecimal>();
    series.forEach(
        (k, v) -> {
          if (v[b] != 0) {
            out.put(
                k, new BigDecimal(v[b], MathContext.DECIMAL64).setScale(2, RoundingMode.HALF_EVEN));
          }
        });
    return out;
  }
}

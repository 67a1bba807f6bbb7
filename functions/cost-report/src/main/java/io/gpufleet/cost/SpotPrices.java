package io.gpufleet.cost;

import io.gpufleet.cost.model.SpotPricePoint;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Spot prices as step functions per (zone, instance type): a price holds from its timestamp until
 * the next change. DescribeSpotPriceHistory returns, for a window, the changes inside it plus the
 * last change before its start, so the cost of any interval inside the window is exact: the
 * integral of the step function. Both product descriptions (Linux/UNIX and its VPC variant) may
 * report the same change; equal timestamps collapse to one step.
 */
public final class SpotPrices {
  static final MathContext MC = MathContext.DECIMAL64;
  private static final BigDecimal SECONDS_PER_HOUR = BigDecimal.valueOf(3600);

  private record Key(String zone, String instanceType) {}

  private final Map<Key, List<SpotPricePoint>> series = new HashMap<>();

  public SpotPrices(List<SpotPricePoint> points) {
    var grouped = new HashMap<Key, List<SpotPricePoint>>();
    for (SpotPricePoint p : points) {
      grouped.computeIfAbsent(new Key(p.zone(), p.instanceType()), k -> new ArrayList<>()).add(p);
    }
    grouped.forEach(
        (k, list) -> {
          list.sort(Comparator.comparing(SpotPricePoint::at));
          var steps = new ArrayList<SpotPricePoint>();
          for (SpotPricePoint p : list) {
            if (!steps.isEmpty() && steps.get(steps.size() - 1).at().equals(p.at())) {
              steps.set(steps.size() - 1, p);
            } else {
              steps.add(p);
            }
          }
          series.put(k, steps);
        });
  }

  public boolean knows(String zone, String instanceType) {
    return series.containsKey(new Key(zone, instanceType));
  }

  /**
   * The cost of running from {@code from} to {@code to}; empty when no price is known for the zone
   * and type. Before the first known change the first price is assumed (the API always returns the
   * change before a window's start, so this only happens for intervals it was not asked about).
   */
  public Optional<BigDecimal> cost(String zone, String instanceType, Instant from, Instant to) {
    var steps = series.get(new Key(zone, instanceType));
    if (steps == null || steps.isEmpty()) {
      return Optional.empty();
    }
    if (!to.isAfter(from)) {
      return Optional.of(BigDecimal.ZERO);
    }
    BigDecimal total = BigDecimal.ZERO;
    int i = indexAt(steps, from);
    Instant cursor = from;
    while (cursor.isBefore(to)) {
      BigDecimal price = steps.get(Math.max(i, 0)).perHour();
      Instant next = i + 1 < steps.size() ? steps.get(i + 1).at() : to;
      Instant segmentEnd = next.isBefore(to) ? next : to;
      long nanos = Duration.between(cursor, segmentEnd).toNanos();
      total =
          total.add(price.multiply(BigDecimal.valueOf(nanos, 9).divide(SECONDS_PER_HOUR, MC), MC));
      cursor = segmentEnd;
      i++;
    }
    return Optional.of(total);
  }

  /** Time-weighted average price over the interval (cost / hours). */
  public Optional<BigDecimal> averagePerHour(
      String zone, String instanceType, Instant from, Instant to) {
    BigDecimal hours =
        BigDecimal.valueOf(Duration.between(from, to).toNanos(), 9).divide(SECONDS_PER_HOUR, MC);
    if (hours.signum() <= 0) {
      return Optional.empty();
    }
    return cost(zone, instanceType, from, to).map(c -> c.divide(hours, MC));
  }

  /** Index of the last step at or before t; -1 when t is before the first step. */
  private static int indexAt(List<SpotPricePoint> steps, Instant t) {
    int lo = 0;
    int hi = steps.size() - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (!steps.get(mid).at().isAfter(t)) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }
}

package io.gpufleet.cost;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Pure: splits one node's cost (in cents) over its pods by an {@link AllocationRule}. The pods'
 * cents are rounded by the largest-remainder method and the idle part is what is left, so allocated
 * + idle equals the node's cost to the cent, always.
 */
public final class Allocator {
  private static final BigDecimal ZERO = BigDecimal.valueOf(0, 2);

  private Allocator() {}

  /** A pod's requested resource-hours on the node within the window. */
  public record Demand(double gpuHours, double cpuHours, double memoryHours) {}

  /** The node's allocatable resource-hours within the window. */
  public record Capacity(double gpuHours, double cpuHours, double memoryHours) {}

  /** Cents per pod (same order as the demands) and the idle rest. */
  public record Split(BigDecimal[] pods, BigDecimal idle) {}

  public static Split split(
      BigDecimal nodeCost, Capacity cap, Demand[] demands, AllocationRule rule) {
    return split(nodeCost, shares(cap, demands, rule));
  }

  /**
   * Each pod's share of the node (0..1, adding up to at most 1), by the rule: the part of the
   * node's cost it is charged before rounding. Computed once and applied to effective and list cost
   * alike.
   */
  public static double[] shares(Capacity cap, Demand[] demands, AllocationRule rule) {
    int n = demands.length;
    var shares = new double[n];
    double wg = rule.gpu().doubleValue();
    double wc = rule.cpu().doubleValue();
    double wm = rule.memory().doubleValue();
    if (cap.gpuHours() <= 0 && wg > 0) {
      double rest = wc + wm;
      if (rest <= 0) {
        wc = 0.5;
        wm = 0.5;
      } else {
        wc = wc / rest;
        wm = wm / rest;
      }
      wg = 0;
    }
    double sg = scale(cap.gpuHours(), demands, 0);
    double sc = scale(cap.cpuHours(), demands, 1);
    double sm = scale(cap.memoryHours(), demands, 2);
    double sum = 0;
    for (int i = 0; i < n; i++) {
      Demand d = demands[i];
      shares[i] =
          wg * ratio(d.gpuHours() * sg, cap.gpuHours())
              + wc * ratio(d.cpuHours() * sc, cap.cpuHours())
              + wm * ratio(d.memoryHours() * sm, cap.memoryHours());
      sum += shares[i];
    }
    if (sum > 1) {
      // floating-point shares that overshoot by a hair
      for (int i = 0; i < n; i++) {
        shares[i] /= sum;
      }
    }
    return shares;
  }

  /**
   * Splits a cost by shares: each pod gets its share rounded to cents (largest remainder, so the
   * rounded parts add up to the rounded sum of the exact parts), the idle part is the rest of the
   * node's cost in cents. Exact integer arithmetic on cents: allocated + idle = cost, always.
   */
  public static Split split(BigDecimal nodeCost, double[] shares) {
    BigDecimal total = nodeCost.setScale(2, RoundingMode.HALF_EVEN);
    long totalCents = total.unscaledValue().longValueExact();
    int n = shares.length;
    var cents = new BigDecimal[n];
    if (n == 0 || totalCents <= 0) {
      java.util.Arrays.fill(cents, ZERO);
      return new Split(cents, total);
    }
    var floors = new long[n];
    var remainders = new double[n];
    double exactSum = 0;
    long floorSum = 0;
    for (int i = 0; i < n; i++) {
      double exact = totalCents * shares[i];
      exactSum += exact;
      floors[i] = (long) Math.floor(exact);
      remainders[i] = exact - floors[i];
      floorSum += floors[i];
    }
    long target = Math.min(totalCents, Math.round(exactSum));
    long extra = target - floorSum;
    if (extra > 0) {
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      java.util.Arrays.sort(order, (a, b) -> Double.compare(remainders[b], remainders[a]));
      for (int k = 0; k < extra && k < n; k++) {
        floors[order[k]]++;
      }
    }
    long allocated = 0;
    for (int i = 0; i < n; i++) {
      cents[i] = floors[i] == 0 ? ZERO : BigDecimal.valueOf(floors[i], 2);
      allocated += floors[i];
    }
    return new Split(cents, BigDecimal.valueOf(totalCents - allocated, 2));
  }

  /** Requests beyond capacity (overlapping snapshots) are scaled down to capacity. */
  private static double scale(double capacity, Demand[] demands, int which) {
    double sum = 0;
    for (Demand d : demands) {
      sum += which == 0 ? d.gpuHours() : which == 1 ? d.cpuHours() : d.memoryHours();
    }
    return sum > capacity && sum > 0 ? capacity / sum : 1.0;
  }

  private static double ratio(double part, double whole) {
    return whole <= 0 ? 0 : part / whole;
  }
}

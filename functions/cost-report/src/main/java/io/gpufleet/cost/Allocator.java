package io.gpufleet.cost;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Pure: splits one node's cost (in cents) over its pods by an {@link AllocationRule}. The pods'
 * cents are rounded by the largest-remainder method and the idle part is what is left, so allocated
 * + idle equals the node's cost to the cent, always.
 */
public final class Allocator {
  private static final MathContext MC = MathContext.DECIMAL64;

  private Allocator() {}

  /** A pod's requested resource-hours on the node within the window. */
  public record Demand(double gpuHours, double cpuHours, double memoryHours) {}

  /** The node's allocatable resource-hours within the window. */
  public record Capacity(double gpuHours, double cpuHours, double memoryHours) {}

  /** Cents per pod (same order as the demands) and the idle rest. */
  public record Split(BigDecimal[] pods, BigDecimal idle) {}

  public static Split split(
      BigDecimal nodeCost, Capacity cap, Demand[] demands, AllocationRule rule) {
    BigDecimal total = nodeCost.setScale(2, RoundingMode.HALF_EVEN);
    int n = demands.length;
    var cents = new BigDecimal[n];
    if (n == 0 || total.signum() == 0) {
      java.util.Arrays.fill(cents, BigDecimal.ZERO.setScale(2));
      return new Split(cents, total);
    }
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
    // shares of the node in exact-enough double arithmetic, then money in BigDecimal
    var exact = new BigDecimal[n];
    BigDecimal sum = BigDecimal.ZERO;
    for (int i = 0; i < n; i++) {
      Demand d = demands[i];
      double share =
          wg * ratio(d.gpuHours() * sg, cap.gpuHours())
              + wc * ratio(d.cpuHours() * sc, cap.cpuHours())
              + wm * ratio(d.memoryHours() * sm, cap.memoryHours());
      exact[i] = total.multiply(BigDecimal.valueOf(share), MC);
      sum = sum.add(exact[i], MC);
    }
    if (sum.compareTo(total) > 0) {
      // floating-point shares that overshoot by a hair: scale back onto the node's cost
      BigDecimal f = total.divide(sum, MC);
      sum = BigDecimal.ZERO;
      for (int i = 0; i < n; i++) {
        exact[i] = exact[i].multiply(f, MC);
        sum = sum.add(exact[i], MC);
      }
    }
    long targetCents =
        sum.min(total).setScale(2, RoundingMode.HALF_EVEN).movePointRight(2).longValueExact();
    long floorSum = 0;
    var floors = new long[n];
    var remainders = new BigDecimal[n];
    for (int i = 0; i < n; i++) {
      BigDecimal c = exact[i].movePointRight(2);
      floors[i] = c.setScale(0, RoundingMode.FLOOR).longValueExact();
      remainders[i] = c.subtract(BigDecimal.valueOf(floors[i]));
      floorSum += floors[i];
    }
    long extra = targetCents - floorSum;
    if (extra > 0) {
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      java.util.Arrays.sort(order, (a, b) -> remainders[b].compareTo(remainders[a]));
      for (int k = 0; k < extra && k < n; k++) {
        floors[order[k]]++;
      }
    }
    BigDecimal allocated = BigDecimal.ZERO;
    for (int i = 0; i < n; i++) {
      cents[i] = BigDecimal.valueOf(floors[i], 2);
      allocated = allocated.add(cents[i]);
    }
    return new Split(cents, total.subtract(allocated));
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

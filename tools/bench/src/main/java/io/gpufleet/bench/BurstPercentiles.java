package io.gpufleet.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code bench drain-burst} reports in the terms the peers publish theirs: across the burst's
 * interruptions, P50 and P99 of the time from the burst (each event's environment start) to its
 * node being tainted and cordoned, and to all its evictions being issued; beside them, as context
 * only (another system, other hardware, measured by its maintainers), the figures NTH's maintainers
 * published for 50 simultaneous Spot interruptions.
 */
final class BurstPercentiles {
  private BurstPercentiles() {}

  /** Nearest-rank percentile ({@code p} in 1..100) of {@code values}; null when there are none. */
  static Long percentile(List<Long> values, int p) {
    if (p < 1 || p > 100) {
      throw new IllegalArgumentException("a percentile is 1 to 100, not " + p);
    }
    if (values.isEmpty()) {
      return null;
    }
    var sorted = new ArrayList<>(values);
    sorted.sort(null);
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }

  /** {@code {p50, p99, max, n}} of {@code values}. */
  static Map<String, Object> of(List<Long> values) {
    var m = new LinkedHashMap<String, Object>();
    m.put("p50", percentile(values, 50));
    m.put("p99", percentile(values, 99));
    m.put(
        "max",
        values.stream().mapToLong(Long::longValue).max().stream().boxed().findFirst().orElse(null));
    m.put("n", values.size());
    return m;
  }

  /** The published peer figures the issue names, for the same count (50), as context. */
  static Map<String, Object> peers() {
    var m = new LinkedHashMap<String, Object>();
    m.put(
        "nthAt50Interruptions",
        "aws-node-termination-handler's maintainers measured 50 simultaneous Spot interruptions"
            + " with its default API client (QPS 5, burst 10): 78 % of nodes tainted, P99 time to"
            + " cordon 154 s (52 s at QPS 100)");
    m.put("nthEvictions", "the same client needs about 20 s to issue 110 evictions");
    m.put("karpenterClient", "Karpenter's client runs at 200 QPS, burst 300");
    m.put("contextOnly", true);
    return m;
  }
}

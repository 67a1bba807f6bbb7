package io.gpufleet.cost.model;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** What one run did: the structured record that is logged, counted, published and returned. */
public record CostOutcome(
    Status status,
    String cluster,
    String window,
    Instant windowStart,
    Instant windowEnd,
    String message,
    Map<String, String> outputs,
    String currency,
    BigDecimal totalCost,
    BigDecimal onDemandEquivalentCost,
    BigDecimal spotSavings,
    Double idleGpuPercent,
    BigDecimal idleGpuCost,
    BigDecimal costPerGpuHour,
    BigDecimal projectedMonthTotal,
    Integer nodes,
    Integer pods,
    Integer nodesWithoutEc2Match,
    Integer unpricedNodes,
    Integer pricingApiCalls,
    Map<String, Long> priceSources,
    String allocationRule,
    long durationMs,
    List<String> warnings) {

  public enum Status {
    /** A report was written. */
    REPORTED,
    /** Only the inventory snapshot was taken (hourly snapshot runs). */
    SNAPSHOT,
    /** The request was invalid; nothing was written. */
    REJECTED
  }

  public static CostOutcome rejected(String cluster, String message) {
    return new CostOutcome(
        Status.REJECTED,
        cluster,
        null,
        null,
        null,
        message,
        Map.of(),
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        Map.of(),
        null,
        0,
        List.of());
  }
}

package io.gpufleet.cost.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What one run did for one cluster: the structured record that is logged, counted, published and
 * returned. A run over several clusters (CLUSTER_NAMES) answers the first cluster's outcome with
 * {@code clusters}: every cluster's outcome, in the configured order (absent for one cluster).
 */
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
    List<String> warnings,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<CostOutcome> clusters) {

  public enum Status {
    /** A report was written. */
    REPORTED,
    /** Only the inventory snapshot was taken (hourly snapshot runs). */
    SNAPSHOT,
    /** The request was invalid; nothing was written. */
    REJECTED,
    /**
     * This cluster could not be read or reported (e.g. unreachable, access denied); nothing was
     * written for it, the other clusters of the run were reported.
     */
    FAILED
  }

  /** The same outcome answering for a run over several clusters. */
  public CostOutcome withClusters(List<CostOutcome> all) {
    return new CostOutcome(
        status,
        cluster,
        window,
        windowStart,
        windowEnd,
        message,
        outputs,
        currency,
        totalCost,
        onDemandEquivalentCost,
        spotSavings,
        idleGpuPercent,
        idleGpuCost,
        costPerGpuHour,
        projectedMonthTotal,
        nodes,
        pods,
        nodesWithoutEc2Match,
        unpricedNodes,
        pricingApiCalls,
        priceSources,
        allocationRule,
        durationMs,
        warnings,
        List.copyOf(all));
  }

  public static CostOutcome failed(
      String cluster, ReportWindow w, String message, long durationMs, List<String> warnings) {
    return withoutReport(Status.FAILED, cluster, w, message, durationMs, List.copyOf(warnings));
  }

  public static CostOutcome rejected(String cluster, String message) {
    return withoutReport(Status.REJECTED, cluster, null, message, 0, List.of());
  }

  /** An outcome with no report behind it: no figures, no outputs, no price sources. */
  private static CostOutcome withoutReport(
      Status status,
      String cluster,
      ReportWindow w,
      String message,
      long durationMs,
      List<String> warnings) {
    return new CostOutcome(
        status,
        cluster,
        w == null ? null : w.spec(),
        w == null ? null : w.start(),
        w == null ? null : w.end(),
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
        durationMs,
        warnings,
        null);
  }
}

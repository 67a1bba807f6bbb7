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
    return toBuilder().clusters(List.copyOf(all)).build();
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
    return builder(status, cluster)
        .window(w)
        .message(message)
        .durationMs(durationMs)
        .warnings(warnings)
        .build();
  }

  /**
   * An outcome of {@code status} for {@code cluster}: no window, no figures, no outputs or price
   * sources (empty maps), no warnings, until set.
   */
  public static Builder builder(Status status, String cluster) {
    return new Builder(status, cluster);
  }

  /** A builder holding this outcome's every component. */
  public Builder toBuilder() {
    var b = new Builder(status, cluster);
    b.window = window;
    b.windowStart = windowStart;
    b.windowEnd = windowEnd;
    b.message = message;
    b.outputs = outputs;
    b.currency = currency;
    b.totalCost = totalCost;
    b.onDemandEquivalentCost = onDemandEquivalentCost;
    b.spotSavings = spotSavings;
    b.idleGpuPercent = idleGpuPercent;
    b.idleGpuCost = idleGpuCost;
    b.costPerGpuHour = costPerGpuHour;
    b.projectedMonthTotal = projectedMonthTotal;
    b.nodes = nodes;
    b.pods = pods;
    b.nodesWithoutEc2Match = nodesWithoutEc2Match;
    b.unpricedNodes = unpricedNodes;
    b.pricingApiCalls = pricingApiCalls;
    b.priceSources = priceSources;
    b.allocationRule = allocationRule;
    b.durationMs = durationMs;
    b.warnings = warnings;
    b.clusters = clusters;
    return b;
  }

  /** Builds an outcome component by component; the report's figures come in one call. */
  public static final class Builder {
    private final Status status;
    private final String cluster;
    private String window;
    private Instant windowStart;
    private Instant windowEnd;
    private String message;
    private Map<String, String> outputs = Map.of();
    private String currency;
    private BigDecimal totalCost;
    private BigDecimal onDemandEquivalentCost;
    private BigDecimal spotSavings;
    private Double idleGpuPercent;
    private BigDecimal idleGpuCost;
    private BigDecimal costPerGpuHour;
    private BigDecimal projectedMonthTotal;
    private Integer nodes;
    private Integer pods;
    private Integer nodesWithoutEc2Match;
    private Integer unpricedNodes;
    private Integer pricingApiCalls;
    private Map<String, Long> priceSources = Map.of();
    private String allocationRule;
    private long durationMs;
    private List<String> warnings = List.of();
    private List<CostOutcome> clusters;

    private Builder(Status status, String cluster) {
      this.status = status;
      this.cluster = cluster;
    }

    /** The window's spec, start and end (all null for none). */
    public Builder window(ReportWindow w) {
      window = w == null ? null : w.spec();
      windowStart = w == null ? null : w.start();
      windowEnd = w == null ? null : w.end();
      return this;
    }

    public Builder message(String message) {
      this.message = message;
      return this;
    }

    public Builder outputs(Map<String, String> outputs) {
      this.outputs = outputs;
      return this;
    }

    public Builder currency(String currency) {
      this.currency = currency;
      return this;
    }

    /**
     * The report's figures: costs, idle GPU, cost per GPU-hour, projection and the node, pod,
     * unmatched and unpriced counts.
     */
    public Builder figures(Kpis k) {
      totalCost = k.totalCost();
      onDemandEquivalentCost = k.onDemandEquivalentCost();
      spotSavings = k.spotSavings();
      idleGpuPercent = k.idleGpuPercent();
      idleGpuCost = k.idleGpuCost();
      costPerGpuHour = k.costPerGpuHour();
      projectedMonthTotal = k.projectedMonthTotal();
      nodes = k.nodes();
      pods = k.pods();
      nodesWithoutEc2Match = k.nodesWithoutEc2Match();
      unpricedNodes = k.unpricedNodes();
      return this;
    }

    /** The inventory's counts alone (a snapshot run has no other figures). */
    public Builder counts(int nodes, int pods) {
      this.nodes = nodes;
      this.pods = pods;
      return this;
    }

    public Builder pricingApiCalls(Integer calls) {
      this.pricingApiCalls = calls;
      return this;
    }

    public Builder priceSources(Map<String, Long> priceSources) {
      this.priceSources = priceSources;
      return this;
    }

    public Builder allocationRule(String allocationRule) {
      this.allocationRule = allocationRule;
      return this;
    }

    public Builder durationMs(long durationMs) {
      this.durationMs = durationMs;
      return this;
    }

    public Builder warnings(List<String> warnings) {
      this.warnings = warnings;
      return this;
    }

    public Builder clusters(List<CostOutcome> clusters) {
      this.clusters = clusters;
      return this;
    }

    public CostOutcome build() {
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
          clusters);
    }
  }
}

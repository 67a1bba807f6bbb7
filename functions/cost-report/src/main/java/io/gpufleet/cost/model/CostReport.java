package io.gpufleet.cost.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A finished cost report: header, KPIs, rollups, per-node costs with their allocations, and the
 * same allocations as flat FOCUS-style rows. cost.json carries everything but the flat rows (each
 * node lists its allocations once instead of repeating the node's columns per pod); cost.csv
 * carries the rows.
 */
public record CostReport(
    Header header,
    Kpis kpis,
    Map<String, List<Rollup>> rollups,
    List<NodeCost> nodes,
    List<GpuNode> gpuSharing,
    List<CpuOnlyPod> cpuOnlyPodsOnGpuNodes,
    List<TokenCost> tokens,
    List<HourCost> hourly,
    Reconciliation reconciliation,
    @JsonIgnore List<Row> rows,
    @JsonIgnore Map<String, PodTokens> podTokens) {

  public CostReport {
    podTokens = podTokens == null ? Map.of() : Map.copyOf(podTokens);
  }

  /**
   * The output tokens attributed to one pod ("namespace/pod" in {@link #podTokens}): the tokens
   * priced in {@link #tokens}, for the FOCUS rows; {@code models} joined by "+".
   */
  public record PodTokens(double output, String models) {}

  /**
   * One GPU node: physical GPUs (catalog) vs what the device plugin / DRA driver advertises, how
   * they are shared, measured utilisation (null when no source had it) and what is wrong.
   */
  public record GpuNode(
      String node,
      String instanceType,
      String nodePool,
      int physicalGpus,
      String advertised,
      double advertisedPhysicalGpus,
      String sharing,
      int replicas,
      double gpuCapacityHours,
      double gpuRequestedHours,
      Double utilisationPercent,
      List<String> flags) {}

  /**
   * A pod that requests no GPU on a GPU node, and what it would be charged under each allocation
   * rule (the configured one included): under {@code gpu} it is free and its CPU/memory is paid by
   * the GPU pods and the idle row.
   */
  public record CpuOnlyPod(
      String namespace,
      String pod,
      String node,
      String instanceType,
      double hours,
      Map<String, BigDecimal> costByRule) {}

  /** Output tokens of one model in one namespace and what the pods serving it cost. */
  public record TokenCost(
      String model,
      String namespace,
      String server,
      double outputTokens,
      BigDecimal cost,
      BigDecimal costPerMillionTokens,
      String attribution) {}

  /** The effective cost of one UTC hour, by NodePool and by capacity type. */
  public record HourCost(
      Instant hour, Map<String, BigDecimal> byNodePool, Map<String, BigDecimal> byCapacityType) {}

  /**
   * The report checks itself: pods' allocations + idle rows = node costs = total cost (cents), and
   * requested + idle GPU-hours = physical GPU capacity-hours.
   */
  public record Reconciliation(
      BigDecimal nodeCost,
      BigDecimal allocated,
      BigDecimal idle,
      double physicalGpuHours,
      double requestedGpuHours,
      double idleGpuHours,
      boolean balanced) {}

  /** What the report covers and how it was computed. */
  public record Header(
      String cluster,
      String region,
      String window,
      Instant windowStart,
      Instant windowEnd,
      Instant generatedAt,
      String currency,
      String allocationRule,
      String allocationRuleDescription,
      String teamLabel,
      Map<String, Long> priceSources,
      String staticPricesAsOf,
      Map<String, String> dataSources,
      List<String> notes) {}

  /** One group of a rollup dimension. */
  public record Rollup(
      String key,
      BigDecimal effectiveCost,
      BigDecimal listCost,
      double nodeHours,
      double gpuHours,
      double gpuRequestedHours) {}

  /** One node's cost over the window. */
  public record NodeCost(
      String id,
      String nodeName,
      String instanceType,
      String zone,
      String capacityType,
      String pricingCategory,
      String nodePool,
      Instant from,
      Instant to,
      double hours,
      int accelerators,
      double gpuCapacityHours,
      double gpuRequestedHours,
      BigDecimal onDemandPerHour,
      BigDecimal effectivePerHour,
      BigDecimal listCost,
      BigDecimal effectiveCost,
      BigDecimal idleCost,
      String priceSource,
      @JsonInclude(JsonInclude.Include.NON_NULL) String priceDetail,
      BigDecimal commitmentSavings,
      @JsonInclude(JsonInclude.Include.NON_NULL) String gpuSharing,
      @JsonInclude(JsonInclude.Include.NON_NULL) String advertisedGpus,
      @JsonInclude(JsonInclude.Include.NON_NULL) Double utilisationPercent,
      @JsonInclude(JsonInclude.Include.NON_NULL) BigDecimal utilisationIdleCost,
      boolean ec2Matched,
      boolean inCluster,
      boolean endEstimated,
      List<String> notes,
      List<Allocation> allocations) {}

  /** What one pod on the node was charged (the node's idle part is {@code idleCost}). */
  public record Allocation(
      String namespace,
      String team,
      String pod,
      Instant from,
      Instant to,
      double gpuRequestedHours,
      BigDecimal listCost,
      BigDecimal effectiveCost,
      @JsonInclude(JsonInclude.Include.NON_NULL) Double utilisationPercent) {}

  /**
   * One allocation row (a pod on a node, or the node's idle part), FOCUS column names; the columns
   * FOCUS does not define carry the x_ prefix. x_NodeHours repeats the node's hours on each of its
   * rows (do not sum it); x_GpuHours adds up to the node's GPU capacity-hours.
   */
  @JsonPropertyOrder({
    "ChargePeriodStart",
    "ChargePeriodEnd",
    "BillingCurrency",
    "ListCost",
    "EffectiveCost",
    "PricingCategory",
    "ResourceId",
    "ResourceName",
    "RegionId",
    "AvailabilityZone",
    "x_NodePool",
    "x_InstanceType",
    "x_CapacityType",
    "x_Namespace",
    "x_Team",
    "x_Pod",
    "x_GpuHours",
    "x_GpuRequestedHours",
    "x_NodeHours",
    "x_PriceSource",
    "x_AllocationRule"
  })
  public record Row(
      @JsonProperty("ChargePeriodStart") Instant chargePeriodStart,
      @JsonProperty("ChargePeriodEnd") Instant chargePeriodEnd,
      @JsonProperty("BillingCurrency") String billingCurrency,
      @JsonProperty("ListCost") BigDecimal listCost,
      @JsonProperty("EffectiveCost") BigDecimal effectiveCost,
      @JsonProperty("PricingCategory") String pricingCategory,
      @JsonProperty("ResourceId") String resourceId,
      @JsonProperty("ResourceName") String resourceName,
      @JsonProperty("RegionId") String regionId,
      @JsonProperty("AvailabilityZone") String availabilityZone,
      @JsonProperty("x_NodePool") String nodePool,
      @JsonProperty("x_InstanceType") String instanceType,
      @JsonProperty("x_CapacityType") String capacityType,
      @JsonProperty("x_Namespace") String namespace,
      @JsonProperty("x_Team") String team,
      @JsonProperty("x_Pod") String pod,
      @JsonProperty("x_GpuHours") double gpuHours,
      @JsonProperty("x_GpuRequestedHours") double gpuRequestedHours,
      @JsonProperty("x_NodeHours") double nodeHours,
      @JsonProperty("x_PriceSource") String priceSource,
      @JsonProperty("x_AllocationRule") String allocationRule) {}

  /** Namespace of the idle rows. */
  public static final String IDLE = "(idle)";
}

package io.gpufleet.cost.model;

import java.math.BigDecimal;
import java.util.Map;

/** The figures a FinOps reader wants first. Money in the report currency, rounded to cents. */
public record Kpis(
    BigDecimal totalCost,
    BigDecimal onDemandEquivalentCost,
    BigDecimal spotSavings,
    double spotShareOfNodeHours,
    double spotShareOfCost,
    double nodeHours,
    double gpuCapacityHours,
    double gpuRequestedHours,
    BigDecimal costPerGpuHour,
    double idleGpuPercent,
    BigDecimal idleGpuCost,
    BigDecimal allocatedIdleCost,
    BigDecimal runRatePerHour,
    BigDecimal projectedMonthTotal,
    int nodes,
    int nodesWithoutEc2Match,
    int nodesFromSnapshotOnly,
    int unpricedNodes,
    int pods,
    BigDecimal commitmentSavings,
    int physicalGpus,
    int advertisedGpuUnits,
    int gpuNodesWithoutAllocatableGpus,
    Double gpuUtilisationPercent,
    BigDecimal utilisationIdleGpuCost,
    int cpuOnlyPodsOnGpuNodes,
    Map<String, BigDecimal> cpuOnlyPodCostByRule,
    BigDecimal costPerMillionOutputTokens) {

  /** A builder with every figure zero, null or empty until set. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds the KPIs in parts: totals over the nodes, then GPU sharing, utilisation, tokens. */
  public static final class Builder {
    private BigDecimal totalCost;
    private BigDecimal onDemandEquivalentCost;
    private BigDecimal spotSavings;
    private double spotShareOfNodeHours;
    private double spotShareOfCost;
    private double nodeHours;
    private double gpuCapacityHours;
    private double gpuRequestedHours;
    private BigDecimal costPerGpuHour;
    private double idleGpuPercent;
    private BigDecimal idleGpuCost;
    private BigDecimal allocatedIdleCost;
    private BigDecimal runRatePerHour;
    private BigDecimal projectedMonthTotal;
    private int nodes;
    private int nodesWithoutEc2Match;
    private int nodesFromSnapshotOnly;
    private int unpricedNodes;
    private int pods;
    private BigDecimal commitmentSavings;
    private int physicalGpus;
    private int advertisedGpuUnits;
    private int gpuNodesWithoutAllocatableGpus;
    private Double gpuUtilisationPercent;
    private BigDecimal utilisationIdleGpuCost;
    private int cpuOnlyPodsOnGpuNodes;
    private Map<String, BigDecimal> cpuOnlyPodCostByRule = Map.of();
    private BigDecimal costPerMillionOutputTokens;

    private Builder() {}

    public Builder totalCost(BigDecimal totalCost) {
      this.totalCost = totalCost;
      return this;
    }

    public Builder onDemandEquivalentCost(BigDecimal onDemandEquivalentCost) {
      this.onDemandEquivalentCost = onDemandEquivalentCost;
      return this;
    }

    public Builder spotSavings(BigDecimal spotSavings) {
      this.spotSavings = spotSavings;
      return this;
    }

    public Builder spotShareOfNodeHours(double spotShareOfNodeHours) {
      this.spotShareOfNodeHours = spotShareOfNodeHours;
      return this;
    }

    public Builder spotShareOfCost(double spotShareOfCost) {
      this.spotShareOfCost = spotShareOfCost;
      return this;
    }

    public Builder nodeHours(double nodeHours) {
      this.nodeHours = nodeHours;
      return this;
    }

    public Builder gpuCapacityHours(double gpuCapacityHours) {
      this.gpuCapacityHours = gpuCapacityHours;
      return this;
    }

    public Builder gpuRequestedHours(double gpuRequestedHours) {
      this.gpuRequestedHours = gpuRequestedHours;
      return this;
    }

    public Builder costPerGpuHour(BigDecimal costPerGpuHour) {
      this.costPerGpuHour = costPerGpuHour;
      return this;
    }

    public Builder idleGpuPercent(double idleGpuPercent) {
      this.idleGpuPercent = idleGpuPercent;
      return this;
    }

    public Builder idleGpuCost(BigDecimal idleGpuCost) {
      this.idleGpuCost = idleGpuCost;
      return this;
    }

    public Builder allocatedIdleCost(BigDecimal allocatedIdleCost) {
      this.allocatedIdleCost = allocatedIdleCost;
      return this;
    }

    public Builder runRatePerHour(BigDecimal runRatePerHour) {
      this.runRatePerHour = runRatePerHour;
      return this;
    }

    public Builder projectedMonthTotal(BigDecimal projectedMonthTotal) {
      this.projectedMonthTotal = projectedMonthTotal;
      return this;
    }

    public Builder nodes(int nodes) {
      this.nodes = nodes;
      return this;
    }

    public Builder nodesWithoutEc2Match(int nodesWithoutEc2Match) {
      this.nodesWithoutEc2Match = nodesWithoutEc2Match;
      return this;
    }

    public Builder nodesFromSnapshotOnly(int nodesFromSnapshotOnly) {
      this.nodesFromSnapshotOnly = nodesFromSnapshotOnly;
      return this;
    }

    public Builder unpricedNodes(int unpricedNodes) {
      this.unpricedNodes = unpricedNodes;
      return this;
    }

    public Builder pods(int pods) {
      this.pods = pods;
      return this;
    }

    public Builder commitmentSavings(BigDecimal commitmentSavings) {
      this.commitmentSavings = commitmentSavings;
      return this;
    }

    public Builder physicalGpus(int physicalGpus) {
      this.physicalGpus = physicalGpus;
      return this;
    }

    public Builder advertisedGpuUnits(int advertisedGpuUnits) {
      this.advertisedGpuUnits = advertisedGpuUnits;
      return this;
    }

    public Builder gpuNodesWithoutAllocatableGpus(int gpuNodesWithoutAllocatableGpus) {
      this.gpuNodesWithoutAllocatableGpus = gpuNodesWithoutAllocatableGpus;
      return this;
    }

    public Builder gpuUtilisationPercent(Double gpuUtilisationPercent) {
      this.gpuUtilisationPercent = gpuUtilisationPercent;
      return this;
    }

    public Builder utilisationIdleGpuCost(BigDecimal utilisationIdleGpuCost) {
      this.utilisationIdleGpuCost = utilisationIdleGpuCost;
      return this;
    }

    public Builder cpuOnlyPodsOnGpuNodes(int cpuOnlyPodsOnGpuNodes) {
      this.cpuOnlyPodsOnGpuNodes = cpuOnlyPodsOnGpuNodes;
      return this;
    }

    public Builder cpuOnlyPodCostByRule(Map<String, BigDecimal> cpuOnlyPodCostByRule) {
      this.cpuOnlyPodCostByRule = cpuOnlyPodCostByRule;
      return this;
    }

    public Builder costPerMillionOutputTokens(BigDecimal costPerMillionOutputTokens) {
      this.costPerMillionOutputTokens = costPerMillionOutputTokens;
      return this;
    }

    public Kpis build() {
      return new Kpis(
          totalCost,
          onDemandEquivalentCost,
          spotSavings,
          spotShareOfNodeHours,
          spotShareOfCost,
          nodeHours,
          gpuCapacityHours,
          gpuRequestedHours,
          costPerGpuHour,
          idleGpuPercent,
          idleGpuCost,
          allocatedIdleCost,
          runRatePerHour,
          projectedMonthTotal,
          nodes,
          nodesWithoutEc2Match,
          nodesFromSnapshotOnly,
          unpricedNodes,
          pods,
          commitmentSavings,
          physicalGpus,
          advertisedGpuUnits,
          gpuNodesWithoutAllocatableGpus,
          gpuUtilisationPercent,
          utilisationIdleGpuCost,
          cpuOnlyPodsOnGpuNodes,
          cpuOnlyPodCostByRule,
          costPerMillionOutputTokens);
    }
  }
}

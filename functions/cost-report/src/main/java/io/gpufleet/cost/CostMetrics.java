package io.gpufleet.cost;

import io.gpufleet.core.outcome.CoreMetrics;
import io.gpufleet.core.outcome.Metric;
import io.gpufleet.core.outcome.MetricsPort.Unit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Every metric the cost report publishes (Service = cost-report). Money is in the report's currency
 * (USD), published unit-less: CloudWatch has no currency unit.
 */
public final class CostMetrics {
  private CostMetrics() {}

  public static final String SERVICE = "cost-report";

  public static final Metric RUNS_REJECTED = Metric.count("RunsRejected");
  public static final Metric CLUSTER_REPORTS_FAILED = Metric.count("ClusterReportsFailed");
  public static final Metric SNAPSHOTS_TAKEN = Metric.count("SnapshotsTaken");
  public static final Metric REPORTS_WRITTEN = Metric.count("ReportsWritten");
  public static final Metric TOTAL_COST = Metric.gauge("TotalCost", Unit.NONE);
  public static final Metric ON_DEMAND_EQUIVALENT_COST =
      Metric.gauge("OnDemandEquivalentCost", Unit.NONE);
  public static final Metric SPOT_SAVINGS = Metric.gauge("SpotSavings", Unit.NONE);
  public static final Metric IDLE_GPU_PERCENT = Metric.gauge("IdleGpuPercent", Unit.PERCENT);
  public static final Metric IDLE_GPU_COST = Metric.gauge("IdleGpuCost", Unit.NONE);
  public static final Metric COST_PER_GPU_HOUR = Metric.gauge("CostPerGpuHour", Unit.NONE);
  public static final Metric NODES_REPORTED = Metric.gauge("NodesReported", Unit.COUNT);
  public static final Metric NODES_WITHOUT_EC2_MATCH =
      Metric.gauge("NodesWithoutEc2Match", Unit.COUNT);
  public static final Metric UNPRICED_NODES = Metric.gauge("UnpricedNodes", Unit.COUNT);
  public static final Metric PRICING_API_CALLS = Metric.count("PricingApiCalls");
  public static final Metric REPORT_DURATION = Metric.millis("ReportDuration");
  public static final Metric COMMITMENT_SAVINGS = Metric.gauge("CommitmentSavings", Unit.NONE);
  public static final Metric GPU_NODES_WITHOUT_ALLOCATABLE_GPUS =
      Metric.gauge("GpuNodesWithoutAllocatableGpus", Unit.COUNT);
  public static final Metric CPU_ONLY_PODS_ON_GPU_NODES =
      Metric.gauge("CpuOnlyPodsOnGpuNodes", Unit.COUNT);
  public static final Metric GPU_UTILISATION_PERCENT =
      Metric.gauge("GpuUtilisationPercent", Unit.PERCENT);
  public static final Metric UTILISATION_IDLE_GPU_COST =
      Metric.gauge("UtilisationIdleGpuCost", Unit.NONE);
  public static final Metric COST_PER_MILLION_OUTPUT_TOKENS =
      Metric.gauge("CostPerMillionOutputTokens", Unit.NONE);

  /** Everything this function publishes, the kernel's metrics included. */
  public static final List<Metric> ALL;

  static {
    var all =
        new ArrayList<Metric>(
            List.of(
                RUNS_REJECTED,
                CLUSTER_REPORTS_FAILED,
                SNAPSHOTS_TAKEN,
                REPORTS_WRITTEN,
                TOTAL_COST,
                ON_DEMAND_EQUIVALENT_COST,
                SPOT_SAVINGS,
                IDLE_GPU_PERCENT,
                IDLE_GPU_COST,
                COST_PER_GPU_HOUR,
                NODES_REPORTED,
                NODES_WITHOUT_EC2_MATCH,
                UNPRICED_NODES,
                PRICING_API_CALLS,
                REPORT_DURATION,
                COMMITMENT_SAVINGS,
                GPU_NODES_WITHOUT_ALLOCATABLE_GPUS,
                CPU_ONLY_PODS_ON_GPU_NODES,
                GPU_UTILISATION_PERCENT,
                UTILISATION_IDLE_GPU_COST,
                COST_PER_MILLION_OUTPUT_TOKENS));
    all.addAll(CoreMetrics.ALL);
    ALL = Collections.unmodifiableList(all);
  }
}

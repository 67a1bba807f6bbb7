package io.gpufleet.cost;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.MetricsPort.Unit;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.Sinks;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.CostReport;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a run's outcome everywhere it belongs: a JSON log line, EMF metrics, an EventBridge event
 * and a short summary (SNS). A failing sink is logged and counted, never fails the run.
 */
public final class CostReporter {
  public static final String DETAIL_TYPE = "GPU Fleet Cost Report";
  private static final Logger LOG = LoggerFactory.getLogger(CostReporter.class);
  private final MetricsPort metrics;
  private final EventPublisherPort publisher;
  private final NotifierPort notifier;

  public CostReporter(MetricsPort metrics, EventPublisherPort publisher, NotifierPort notifier) {
    this.metrics = metrics;
    this.publisher = publisher;
    this.notifier = notifier;
  }

  public void report(CostOutcome o, CostReport report) {
    if (o.status() == CostOutcome.Status.REJECTED) {
      LOG.warn(
          "cost report rejected: {}", o.message(), entry("outcome", Json.MAPPER.valueToTree(o)));
      metrics.add("RunsRejected", 1, Unit.COUNT);
      return;
    }
    if (o.status() == CostOutcome.Status.FAILED) {
      LOG.error(
          "cost report of {} failed: {}",
          o.cluster(),
          o.message(),
          entry("outcome", Json.MAPPER.valueToTree(o)));
      metrics.add("ClusterReportsFailed", 1, Unit.COUNT);
      guarded("eventbridge", () -> publisher.publish(DETAIL_TYPE, o, List.of()));
      guarded(
          "notification",
          () ->
              notifier.notify(
                  "[GPU Fleet] cost " + o.cluster() + " FAILED",
                  "Cluster "
                      + o.cluster()
                      + (o.window() == null ? "" : ", window " + o.window())
                      + ": "
                      + o.message()
                      + "\nThe other clusters of the run were reported; this one will be"
                      + " reported by the next run that can read it.\n"));
      return;
    }
    LOG.info(
        "cost {} for {}", o.status(), o.cluster(), entry("outcome", Json.MAPPER.valueToTree(o)));
    if (o.status() == CostOutcome.Status.SNAPSHOT) {
      metrics.add("SnapshotsTaken", 1, Unit.COUNT);
      return;
    }
    metrics.add("ReportsWritten", 1, Unit.COUNT);
    metrics.add("TotalCost", o.totalCost().doubleValue(), Unit.NONE);
    metrics.add("OnDemandEquivalentCost", o.onDemandEquivalentCost().doubleValue(), Unit.NONE);
    metrics.add("SpotSavings", o.spotSavings().doubleValue(), Unit.NONE);
    metrics.add("IdleGpuPercent", o.idleGpuPercent(), Unit.PERCENT);
    metrics.add("IdleGpuCost", o.idleGpuCost().doubleValue(), Unit.NONE);
    if (o.costPerGpuHour() != null) {
      metrics.add("CostPerGpuHour", o.costPerGpuHour().doubleValue(), Unit.NONE);
    }
    metrics.add("NodesReported", o.nodes(), Unit.COUNT);
    metrics.add("NodesWithoutEc2Match", o.nodesWithoutEc2Match(), Unit.COUNT);
    metrics.add("UnpricedNodes", o.unpricedNodes(), Unit.COUNT);
    metrics.add("PricingApiCalls", o.pricingApiCalls(), Unit.COUNT);
    metrics.add("ReportDuration", o.durationMs(), Unit.MILLISECONDS);
    if (report != null) {
      var k = report.kpis();
      metrics.add("CommitmentSavings", k.commitmentSavings().doubleValue(), Unit.NONE);
      metrics.add("GpuNodesWithoutAllocatableGpus", k.gpuNodesWithoutAllocatableGpus(), Unit.COUNT);
      metrics.add("CpuOnlyPodsOnGpuNodes", k.cpuOnlyPodsOnGpuNodes(), Unit.COUNT);
      if (k.gpuUtilisationPercent() != null) {
        metrics.add("GpuUtilisationPercent", k.gpuUtilisationPercent(), Unit.PERCENT);
        metrics.add("UtilisationIdleGpuCost", k.utilisationIdleGpuCost().doubleValue(), Unit.NONE);
      }
      if (k.costPerMillionOutputTokens() != null) {
        metrics.add(
            "CostPerMillionOutputTokens", k.costPerMillionOutputTokens().doubleValue(), Unit.NONE);
      }
    }
    guarded("eventbridge", () -> publisher.publish(DETAIL_TYPE, o, List.of()));
    guarded("notification", () -> notifier.notify(subject(o), summary(o, report)));
  }

  private void guarded(String sink, Runnable action) {
    Sinks.guarded(metrics, LOG, sink, action);
  }

  public static String subject(CostOutcome o) {
    return "[GPU Fleet] cost "
        + o.cluster()
        + " "
        + o.window()
        + ": "
        + o.currency()
        + " "
        + o.totalCost();
  }

  /** The lines a FinOps reader wants in the mail: totals, idle, Spot, top pools, where to look. */
  public static String summary(CostOutcome o, CostReport report) {
    var sb = new StringBuilder();
    sb.append("Cluster ")
        .append(o.cluster())
        .append(", window ")
        .append(o.window())
        .append(" (")
        .append(o.windowStart())
        .append(" to ")
        .append(o.windowEnd())
        .append(")\n");
    sb.append("Total ")
        .append(o.currency())
        .append(' ')
        .append(o.totalCost())
        .append(" (On-Demand equivalent ")
        .append(o.onDemandEquivalentCost())
        .append(", Spot saved ")
        .append(o.spotSavings())
        .append(")\n");
    sb.append("Idle GPU ")
        .append(o.idleGpuPercent())
        .append(" % costing ")
        .append(o.idleGpuCost())
        .append("; cost per GPU-hour ")
        .append(o.costPerGpuHour())
        .append('\n');
    sb.append("Projected month total ").append(o.projectedMonthTotal()).append('\n');
    if (report != null) {
      var k = report.kpis();
      sb.append("Commitments saved ").append(k.commitmentSavings());
      sb.append("; measured GPU utilisation ")
          .append(k.gpuUtilisationPercent() == null ? "n/a" : k.gpuUtilisationPercent() + " %");
      if (k.costPerMillionOutputTokens() != null) {
        sb.append("; per 1M output tokens ").append(k.costPerMillionOutputTokens());
      }
      sb.append('\n');
      if (k.gpuNodesWithoutAllocatableGpus() > 0) {
        sb.append(k.gpuNodesWithoutAllocatableGpus())
            .append(" GPU node(s) advertise 0 allocatable GPUs (device plugin down?)\n");
      }
      sb.append("Top NodePools:\n");
      report.rollups().get("nodePool").stream()
          .limit(5)
          .forEach(
              r ->
                  sb.append("  ")
                      .append(r.key())
                      .append("  ")
                      .append(r.effectiveCost())
                      .append('\n'));
    }
    if (o.nodesWithoutEc2Match() != null && o.nodesWithoutEc2Match() > 0) {
      sb.append(o.nodesWithoutEc2Match())
          .append(" node(s) without an EC2 match (priced from labels)\n");
    }
    if (o.unpricedNodes() != null && o.unpricedNodes() > 0) {
      sb.append(o.unpricedNodes()).append(" node(s) with no known price\n");
    }
    o.warnings().forEach(w -> sb.append("warning: ").append(w).append('\n'));
    sb.append("Allocation rule: ").append(o.allocationRule()).append('\n');
    o.outputs().forEach((k, v) -> sb.append(k).append(": ").append(v).append('\n'));
    return sb.toString();
  }
}

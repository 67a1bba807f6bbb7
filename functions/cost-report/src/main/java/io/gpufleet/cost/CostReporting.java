package io.gpufleet.cost;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.outcome.OutcomeReporter.Event;
import io.gpufleet.core.outcome.OutcomeReporter.LogLine;
import io.gpufleet.core.outcome.OutcomeReporter.Notice;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.CostReport;
import java.util.List;
import java.util.Optional;
import org.slf4j.event.Level;

/**
 * What a cost run says to each sink ({@link OutcomeReporter}): a JSON log line and EMF metrics for
 * every outcome; for a report, and for a cluster whose report failed, an EventBridge event and a
 * short summary (SNS, Slack).
 */
public final class CostReporting implements OutcomeReporter.Mapping<CostReporting.Run> {
  public static final String DETAIL_TYPE = "GPU Fleet Cost Report";

  /** One cluster's outcome, with the full report when one was written (its KPIs are metrics). */
  public record Run(CostOutcome outcome, CostReport report) {
    public static Run of(CostOutcome outcome) {
      return new Run(outcome, null);
    }
  }

  private CostReporting() {}

  public static OutcomeReporter<Run> reporter(
      MetricsPort metrics, EventPublisherPort publisher, NotifierPort notifier) {
    return new OutcomeReporter<>(new CostReporting(), metrics, publisher, notifier);
  }

  @Override
  public LogLine logLine(Run run) {
    var o = run.outcome();
    var outcome = entry("outcome", Json.MAPPER.valueToTree(o));
    return switch (o.status()) {
      case REJECTED -> new LogLine(Level.WARN, "cost report rejected: {}", o.message(), outcome);
      case FAILED ->
          new LogLine(
              Level.ERROR, "cost report of {} failed: {}", o.cluster(), o.message(), outcome);
      case REPORTED, SNAPSHOT ->
          new LogLine(Level.INFO, "cost {} for {}", o.status(), o.cluster(), outcome);
    };
  }

  @Override
  public void count(Run run, MetricsPort metrics) {
    var o = run.outcome();
    switch (o.status()) {
      case REJECTED -> metrics.add(CostMetrics.RUNS_REJECTED, 1);
      case FAILED -> metrics.add(CostMetrics.CLUSTER_REPORTS_FAILED, 1);
      case SNAPSHOT -> metrics.add(CostMetrics.SNAPSHOTS_TAKEN, 1);
      case REPORTED -> countReport(o, run.report(), metrics);
    }
  }

  private static void countReport(CostOutcome o, CostReport report, MetricsPort metrics) {
    metrics.add(CostMetrics.REPORTS_WRITTEN, 1);
    metrics.add(CostMetrics.TOTAL_COST, o.totalCost().doubleValue());
    metrics.add(CostMetrics.ON_DEMAND_EQUIVALENT_COST, o.onDemandEquivalentCost().doubleValue());
    metrics.add(CostMetrics.SPOT_SAVINGS, o.spotSavings().doubleValue());
    metrics.add(CostMetrics.IDLE_GPU_PERCENT, o.idleGpuPercent());
    metrics.add(CostMetrics.IDLE_GPU_COST, o.idleGpuCost().doubleValue());
    if (o.costPerGpuHour() != null) {
      metrics.add(CostMetrics.COST_PER_GPU_HOUR, o.costPerGpuHour().doubleValue());
    }
    metrics.add(CostMetrics.NODES_REPORTED, o.nodes());
    metrics.add(CostMetrics.NODES_WITHOUT_EC2_MATCH, o.nodesWithoutEc2Match());
    metrics.add(CostMetrics.UNPRICED_NODES, o.unpricedNodes());
    metrics.add(CostMetrics.PRICING_API_CALLS, o.pricingApiCalls());
    metrics.add(CostMetrics.REPORT_DURATION, o.durationMs());
    if (report != null) {
      var k = report.kpis();
      metrics.add(CostMetrics.COMMITMENT_SAVINGS, k.commitmentSavings().doubleValue());
      metrics.add(
          CostMetrics.GPU_NODES_WITHOUT_ALLOCATABLE_GPUS, k.gpuNodesWithoutAllocatableGpus());
      metrics.add(CostMetrics.CPU_ONLY_PODS_ON_GPU_NODES, k.cpuOnlyPodsOnGpuNodes());
      if (k.gpuUtilisationPercent() != null) {
        metrics.add(CostMetrics.GPU_UTILISATION_PERCENT, k.gpuUtilisationPercent());
        metrics.add(
            CostMetrics.UTILISATION_IDLE_GPU_COST, k.utilisationIdleGpuCost().doubleValue());
      }
      if (k.costPerMillionOutputTokens() != null) {
        metrics.add(
            CostMetrics.COST_PER_MILLION_OUTPUT_TOKENS,
            k.costPerMillionOutputTokens().doubleValue());
      }
    }
  }

  @Override
  public Optional<Event> event(Run run) {
    return switch (run.outcome().status()) {
      case REJECTED, SNAPSHOT -> Optional.empty();
      case REPORTED, FAILED -> Optional.of(new Event(DETAIL_TYPE, run.outcome(), List.of()));
    };
  }

  @Override
  public Optional<Notice> notice(Run run) {
    var o = run.outcome();
    return switch (o.status()) {
      case REJECTED, SNAPSHOT -> Optional.empty();
      case FAILED ->
          Optional.of(
              new Notice(
                  "[GPU Fleet] cost " + o.cluster() + " FAILED",
                  "Cluster "
                      + o.cluster()
                      + (o.window() == null ? "" : ", window " + o.window())
                      + ": "
                      + o.message()
                      + "\nThe other clusters of the run were reported; this one will be"
                      + " reported by the next run that can read it.\n"));
      case REPORTED -> Optional.of(new Notice(subject(o), summary(o, run.report())));
    };
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

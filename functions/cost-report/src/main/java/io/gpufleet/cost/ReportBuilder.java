package io.gpufleet.cost;

import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.core.pricing.PricingEndpoint;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.CostReport.NodeCost;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Pure: prices every node of an inventory over a window, allocates each node's cost to its pods,
 * and computes rollups and KPIs, in that order and each in its own class. Prices come through the
 * ports it is given (already warmed by the service, so lookups here are memory hits).
 */
public final class ReportBuilder {
  private ReportBuilder() {}

  /** What the builder needs besides the inventory. */
  public record Inputs(
      String cluster,
      String region,
      ReportWindow window,
      Instant generatedAt,
      AllocationRule rule,
      String teamLabel,
      OnDemandPrices onDemand,
      SpotPrices spot,
      List<String> notes,
      Commitments commitments,
      Utilisation utilisation,
      Map<String, String> dataSources) {

    public Inputs(
        String cluster,
        String region,
        ReportWindow window,
        Instant generatedAt,
        AllocationRule rule,
        String teamLabel,
        OnDemandPrices onDemand,
        SpotPrices spot,
        List<String> notes) {
      this(
          cluster,
          region,
          window,
          generatedAt,
          rule,
          teamLabel,
          onDemand,
          spot,
          notes,
          Commitments.none("no commitment source configured"),
          Utilisation.none("no utilisation source configured"),
          Map.of());
    }
  }

  /** The rules every CPU-only pod on a GPU node is priced under, besides the configured one. */
  static final List<AllocationRule> REFERENCE_RULES =
      List.of(AllocationRule.GPU, AllocationRule.parse("cpu-memory"));

  /**
   * The report of {@code inventory} over the window: each node priced and its cost allocated to its
   * pods ({@link NodeCosting}), then the rollups ({@link Rollups}), the token costs ({@link
   * PodLedger}), the KPIs and the reconciliation ({@link ReportTotals}).
   */
  public static CostReport build(InventorySnapshot inventory, Inputs in) {
    ReportWindow w = in.window();
    String currency = PricingEndpoint.currencyFor(in.region());
    var costing = new NodeCosting(inventory.pods(), in, currency);
    for (NodeRecord n : inventory.nodes()) {
      costing.add(n);
    }
    var nodeCosts = costing.nodeCosts();
    var rows = costing.rows();
    nodeCosts.sort(
        Comparator.comparing(NodeCost::effectiveCost).reversed().thenComparing(NodeCost::id));
    var rollups = Rollups.of(nodeCosts, rows);

    Utilisation util = in.utilisation();
    var ledger = costing.ledger();
    var tokens = ledger.tokenCosts(util);
    var podTokens = ledger.podTokens(util);
    var notes = new ArrayList<>(in.notes());
    double unallocated = ledger.unallocated(util);
    if (unallocated > 0) {
      notes.add(
          String.format(
              Locale.ROOT,
              "%.0f output tokens came from pods (or namespaces without GPU pods) with no"
                  + " allocation in the window: not in cost per token",
              unallocated));
    }
    var gpuNodes = costing.gpuNodes();
    var kpis =
        ReportTotals.kpis(nodeCosts, gpuNodes, w, costing.podCount(), costing.cpuOnly(), tokens);
    gpuNodes.sort(Comparator.comparing(CostReport.GpuNode::node));
    return new CostReport(
        header(in, currency, costing.sources(), notes),
        kpis,
        rollups,
        nodeCosts,
        gpuNodes,
        costing.cpuOnly().listed(),
        tokens,
        costing.hourly().points(),
        ReportTotals.reconcile(nodeCosts, rows, costing.gpuBalance()),
        rows,
        podTokens);
  }

  private static CostReport.Header header(
      Inputs in, String currency, Map<String, Long> sources, List<String> notes) {
    ReportWindow w = in.window();
    return new CostReport.Header(
        in.cluster(),
        in.region(),
        w.spec(),
        w.start(),
        w.end(),
        in.generatedAt(),
        currency,
        in.rule().name(),
        in.rule().describe(),
        in.teamLabel(),
        sources,
        StaticPrices.AS_OF + " (" + StaticPrices.sourceFor(in.region()) + ")",
        new LinkedHashMap<>(in.dataSources()),
        List.copyOf(notes));
  }

  static String label(PriceSource s) {
    return s.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static double hours(Instant a, Instant b) {
    return Duration.between(a, b).toNanos() / 3.6e12;
  }

  static double round3(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  /** At most this many CPU-only pods are listed (the KPIs count and price them all). */
  static final int CPU_ONLY_LISTED = 500;

  /** The reference rules, then the configured one where it is neither. */
  static List<AllocationRule> cpuOnlyRules(AllocationRule configured) {
    var out = new ArrayList<>(REFERENCE_RULES);
    if (out.stream().noneMatch(r -> r.name().equals(configured.name()))) {
      out.add(configured);
    }
    return out;
  }
}

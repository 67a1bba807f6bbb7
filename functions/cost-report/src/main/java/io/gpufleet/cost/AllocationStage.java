package io.gpufleet.cost;

import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.cost.CostReportService.Progress;
import io.gpufleet.cost.InventoryStage.Inventory;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The third stage of a run, per cluster: its inventory priced with the run's prices and its cost
 * allocated to its pods ({@link ReportBuilder}), with the report's account of its data sources
 * (commitments, utilisation, tokens, DRA).
 */
final class AllocationStage {
  private final CostSettings settings;
  private final String region;
  private final OnDemandPrices onDemand;
  private final boolean many;

  /** {@code many}: the run has several clusters, so progress names the cluster. */
  AllocationStage(CostSettings settings, String region, OnDemandPrices onDemand, boolean many) {
    this.settings = settings;
    this.region = region;
    this.onDemand = onDemand;
    this.many = many;
  }

  CostReport report(
      String cluster,
      Inventory inv,
      ReportWindow window,
      Instant now,
      PricingStage.Prices prices,
      Utilisation util,
      List<String> warnings,
      Progress progress) {
    progress.step(
        "utilisation"
            + (many ? " of " + cluster : "")
            + ": "
            + util.source()
            + " ("
            + util.nodePercent().size()
            + " nodes, "
            + util.podPercent().size()
            + " pods, "
            + util.tokens().size()
            + " token series)");
    return ReportBuilder.build(
        inv.snapshot(),
        new ReportBuilder.Inputs(
            cluster,
            region,
            window,
            now,
            settings.rule(),
            settings.teamLabel(),
            onDemand,
            prices.spot(),
            List.copyOf(warnings),
            prices.commitments(),
            util,
            dataSources(inv, prices.commitments(), util)));
  }

  /** Where the report's commitments, utilisation, tokens and DRA devices came from. */
  private static Map<String, String> dataSources(
      Inventory inv, Commitments commit, Utilisation util) {
    var dataSources = new LinkedHashMap<String, String>();
    dataSources.put("commitments", describe(commit.source(), commit.notes()));
    dataSources.put(
        "utilisation",
        util.nodePercent().isEmpty() && util.podPercent().isEmpty()
            ? describe("none", util.notes())
            : util.source()
                + ": "
                + util.nodePercent().size()
                + " nodes, "
                + util.podPercent().size()
                + " pods"
                + (util.notes().isEmpty() ? "" : "; " + String.join("; ", util.notes())));
    dataSources.put(
        "tokens",
        util.tokens().isEmpty()
            ? "none: no vLLM (vllm:generation_tokens_total) or TGI (tgi_request_generated_tokens)"
                + " counters found"
            : util.source() + ": " + util.tokens().size() + " series");
    dataSources.put(
        "dra",
        inv.clusterNotes().stream()
            .filter(x -> x.contains("resource.k8s.io"))
            .findFirst()
            .orElse("resource.k8s.io/v1 ResourceClaims and ResourceSlices read"));
    return dataSources;
  }

  private static String describe(String source, List<String> notes) {
    return notes.isEmpty() ? source : source + ": " + String.join("; ", notes);
  }
}

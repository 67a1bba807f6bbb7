package io.gpufleet.cost;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.cost.focus.FocusOutput;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.ReportWindow;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run, as a straight line of stages: the inventory (each cluster and EC2 read concurrently,
 * merged with the previous snapshot, the next one stored), the prices (every (region, instance
 * type) once, concurrently, the Pricing API's token bucket setting the pace; Spot price history,
 * commitments, utilisation), then per cluster the allocation (the report built) and the rendering
 * (cost.json / cost.csv / cost.html, FOCUS), and the outcome reported.
 */
public final class CostReportService {
  private static final Logger LOG = LoggerFactory.getLogger(CostReportService.class);

  /** Progress for interactive callers (the CLI prints it on stderr). */
  @FunctionalInterface
  public interface Progress {
    void step(String message);

    Progress NONE = m -> {};
  }

  /** A run request: a window spec (or the default), and whether to only take a snapshot. */
  public record Request(String window, Instant anchor, boolean snapshotOnly) {}

  private final CostSettings settings;
  private final List<ClusterTarget> targets;
  private final OnDemandPrices onDemand;
  private final BlobStorePort store;
  private final OutcomeReporter<CostReporting.Run> reporter;
  private final Clock clock;
  private final InventoryStage inventory;
  private final PricingStage pricing;
  private final AllocationStage allocation;
  private final RenderStage render;
  private volatile FocusOutput focus = FocusOutput.OFF;
  private volatile CostReport lastReport;
  private volatile Map<String, CostReport> lastReports = Map.of();

  /**
   * One cluster of the run: its name, its API server and its utilisation source (Container Insights
   * is per cluster). Prices, Spot history and commitments are shared by the run.
   */
  public record ClusterTarget(String name, CostClusterPort reader, UtilisationPort utilisation) {
    public ClusterTarget {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(reader, "reader");
      Objects.requireNonNull(utilisation, "utilisation");
    }
  }

  public CostReportService(
      CostSettings settings,
      String region,
      CostClusterPort cluster,
      InstancePort instances,
      SpotPriceHistoryPort spot,
      OnDemandPrices onDemand,
      BlobStorePort store,
      OutcomeReporter<CostReporting.Run> reporter,
      Clock clock) {
    this(
        settings,
        region,
        cluster,
        instances,
        spot,
        onDemand,
        store,
        reporter,
        clock,
        CommitmentPort.none("no commitment source configured (COST_COMMITMENTS=none)"),
        UtilisationPort.none("no utilisation source configured"));
  }

  public CostReportService(
      CostSettings settings,
      String region,
      CostClusterPort cluster,
      InstancePort instances,
      SpotPriceHistoryPort spot,
      OnDemandPrices onDemand,
      BlobStorePort store,
      OutcomeReporter<CostReporting.Run> reporter,
      Clock clock,
      CommitmentPort commitments,
      UtilisationPort utilisation) {
    this(
        settings,
        region,
        List.of(new ClusterTarget(settings.clusterName(), cluster, utilisation)),
        instances,
        spot,
        onDemand,
        store,
        reporter,
        clock,
        commitments);
  }

  /** Several clusters in one run (CLUSTER_NAMES), each reported under its own key. */
  public CostReportService(
      CostSettings settings,
      String region,
      List<ClusterTarget> targets,
      InstancePort instances,
      SpotPriceHistoryPort spot,
      OnDemandPrices onDemand,
      BlobStorePort store,
      OutcomeReporter<CostReporting.Run> reporter,
      Clock clock,
      CommitmentPort commitments) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("at least one cluster");
    }
    this.settings = settings;
    this.targets = List.copyOf(targets);
    this.onDemand = onDemand;
    this.store = store;
    this.reporter = reporter;
    this.clock = clock;
    this.inventory = new InventoryStage(settings, region, instances, store);
    this.pricing = new PricingStage(settings, spot, onDemand, commitments);
    this.allocation = new AllocationStage(settings, region, onDemand, targets.size() > 1);
    this.render = new RenderStage(store);
  }

  /** Also writes each report's rows as FOCUS (Parquet) under focus/ (off by default). */
  public CostReportService withFocus(FocusOutput focus) {
    this.focus = Objects.requireNonNull(focus, "focus");
    return this;
  }

  public static String snapshotKey(String cluster) {
    return InventoryStage.snapshotKey(cluster);
  }

  public static String reportPrefix(String cluster, ReportWindow w) {
    return RenderStage.reportPrefix(cluster, w);
  }

  /** The first cluster's report of the last run (CLI and tests); null before one. */
  public CostReport lastReport() {
    return lastReport;
  }

  /** Every cluster's report of the last run, by cluster, in order (failed clusters absent). */
  public Map<String, CostReport> lastReports() {
    return lastReports;
  }

  /** The clusters of a run, in order. */
  public List<String> clusters() {
    return targets.stream().map(ClusterTarget::name).toList();
  }

  /**
   * One run, in stages: the inventory of every cluster ({@link InventoryStage}), then for a report
   * the prices shared by the run ({@link PricingStage}), and per cluster the allocation ({@link
   * AllocationStage}) and the files ({@link RenderStage}); each cluster's outcome is reported.
   */
  public CostOutcome run(Request request, Progress progress) {
    long t0 = System.nanoTime();
    Instant now = clock.instant();
    ReportWindow window;
    try {
      window = request.snapshotOnly() ? null : window(request);
    } catch (ConfigException e) {
      var o = CostOutcome.rejected(targets.get(0).name(), e.getMessage());
      reporter.report(CostReporting.Run.of(o));
      return o;
    }
    var inventories = inventory.readAll(targets, now, progress);
    var outcomes = new LinkedHashMap<String, CostOutcome>();
    if (request.snapshotOnly()) {
      for (ClusterTarget t : targets) {
        var o = snapshotted(t.name(), inventories, t0);
        reporter.report(CostReporting.Run.of(o));
        outcomes.put(t.name(), o);
      }
      return answer(outcomes);
    }
    var prices = pricing.read(targets, inventories.read(), window, progress);
    var reports = new LinkedHashMap<String, CostReport>();
    for (ClusterTarget t : targets) {
      var inv = inventories.read().get(t.name());
      if (inv == null) {
        var o =
            failedOutcome(
                t.name(), window, inventories.failed().get(t.name()), t0, "no report written");
        reporter.report(CostReporting.Run.of(o));
        outcomes.put(t.name(), o);
        continue;
      }
      outcomes.put(t.name(), reported(t.name(), inv, window, now, prices, t0, reports, progress));
    }
    onDemand.flush();
    lastReports = Collections.unmodifiableMap(reports);
    lastReport = reports.get(targets.get(0).name());
    return answer(outcomes);
  }

  /** The request's window (or the default), anchored at its scheduled time where it has one. */
  private ReportWindow window(Request request) {
    Clock anchor = request.anchor() == null ? clock : Clock.fixed(request.anchor(), ZoneOffset.UTC);
    return WindowSpec.resolve(
        request.window() == null ? settings.defaultWindow() : request.window(), anchor);
  }

  /** A snapshot run's outcome for one cluster: its snapshot stored, or why it could not be. */
  private CostOutcome snapshotted(String cluster, InventoryStage.Inventories inventories, long t0) {
    var inv = inventories.read().get(cluster);
    if (inv == null) {
      return failedOutcome(
          cluster, null, inventories.failed().get(cluster), t0, "no inventory snapshot");
    }
    var next = inv.snapshot();
    return CostOutcome.builder(CostOutcome.Status.SNAPSHOT, cluster)
        .message(
            "inventory snapshot: "
                + next.nodes().size()
                + " nodes, "
                + next.pods().size()
                + " pods")
        .outputs(Map.of("snapshot", store.locate(snapshotKey(cluster))))
        .counts(next.nodes().size(), next.pods().size())
        .durationMs((System.nanoTime() - t0) / 1_000_000)
        .warnings(inv.warnings())
        .build();
  }

  /**
   * One cluster's report: allocated, rendered, its outcome reported and answered. With several
   * clusters a failure is this cluster's outcome; with one it fails the run.
   */
  private CostOutcome reported(
      String cluster,
      InventoryStage.Inventory inv,
      ReportWindow window,
      Instant now,
      PricingStage.Prices prices,
      long t0,
      Map<String, CostReport> reports,
      Progress progress) {
    try {
      var warnings = new ArrayList<String>(inv.warnings());
      warnings.addAll(prices.warnings());
      var util = prices.utilisation(cluster, warnings);
      var report = allocation.report(cluster, inv, window, now, prices, util, warnings, progress);
      reports.put(cluster, report);
      progress.step("writing cost.json, cost.csv and cost.html" + (many() ? " of " + cluster : ""));
      var outputs = render.write(cluster, window, report, focus);
      var k = report.kpis();
      String currency = report.header().currency();
      var o =
          CostOutcome.builder(CostOutcome.Status.REPORTED, cluster)
              .window(window)
              .message("cost report for " + window.spec() + ": " + currency + " " + k.totalCost())
              .outputs(outputs)
              .currency(currency)
              .figures(k)
              .pricingApiCalls(prices.apiCallsOnce())
              .priceSources(report.header().priceSources())
              .allocationRule(settings.rule().name())
              .durationMs((System.nanoTime() - t0) / 1_000_000)
              .warnings(List.copyOf(warnings))
              .build();
      reporter.report(new CostReporting.Run(o, report));
      return o;
    } catch (RuntimeException e) {
      if (!many()) {
        throw e;
      }
      LOG.error("cost report of cluster {} failed: {}", cluster, e.toString(), e);
      var o = failedOutcome(cluster, window, e, t0, "report not written");
      reporter.report(CostReporting.Run.of(o));
      return o;
    }
  }

  private boolean many() {
    return targets.size() > 1;
  }

  /** One cluster: its outcome as always; several: the first's, with every cluster's. */
  private CostOutcome answer(LinkedHashMap<String, CostOutcome> outcomes) {
    var all = List.copyOf(outcomes.values());
    return many() ? all.get(0).withClusters(all) : all.get(0);
  }

  private CostOutcome failedOutcome(
      String cluster, ReportWindow window, RuntimeException e, long t0, String consequence) {
    String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return CostOutcome.failed(
        cluster,
        window,
        "cluster " + cluster + " could not be read (" + why + "): " + consequence,
        (System.nanoTime() - t0) / 1_000_000,
        List.of());
  }
}

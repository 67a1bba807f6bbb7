package io.gpufleet.cost;

import static io.gpufleet.cost.Futures.get;

import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.cost.CostReportService.ClusterTarget;
import io.gpufleet.cost.CostReportService.Progress;
import io.gpufleet.cost.InventoryStage.Inventory;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second stage of a run, done once for every cluster: each (region, instance type) priced On
 * Demand (concurrently, the Pricing API's token bucket sets the pace), the window's Spot price
 * history, the commitments' rates, and each cluster's GPU utilisation (read meanwhile, awaited when
 * its report is built). A source that fails leaves a warning and list prices, not a failed run.
 */
final class PricingStage {
  // the run's log, as before the stages were split out of the service
  private static final Logger LOG = LoggerFactory.getLogger(CostReportService.class);

  private final CostSettings settings;
  private final SpotPriceHistoryPort spot;
  private final OnDemandPrices onDemand;
  private final CommitmentPort commitments;

  PricingStage(
      CostSettings settings,
      SpotPriceHistoryPort spot,
      OnDemandPrices onDemand,
      CommitmentPort commitments) {
    this.settings = settings;
    this.spot = spot;
    this.onDemand = onDemand;
    this.commitments = commitments;
  }

  /**
   * What every cluster's report is priced with, and what the sources' failures left to say ({@code
   * warnings}). The run's Pricing API calls are shared: {@link #apiCallsOnce} gives them to the
   * first cluster reported, 0 to the others.
   */
  static final class Prices {
    private final SpotPrices spot;
    private final Commitments commitments;
    private final List<String> warnings;
    private final Map<String, Future<Utilisation>> utilisation;
    private final OnDemandPrices onDemand;
    private final int apiBefore;
    private boolean counted;

    private Prices(
        SpotPrices spot,
        Commitments commitments,
        List<String> warnings,
        Map<String, Future<Utilisation>> utilisation,
        OnDemandPrices onDemand,
        int apiBefore) {
      this.spot = spot;
      this.commitments = commitments;
      this.warnings = warnings;
      this.utilisation = utilisation;
      this.onDemand = onDemand;
      this.apiBefore = apiBefore;
    }

    SpotPrices spot() {
      return spot;
    }

    Commitments commitments() {
      return commitments;
    }

    List<String> warnings() {
      return warnings;
    }

    /** The cluster's GPU utilisation; none, with a warning added, where its source failed. */
    Utilisation utilisation(String cluster, List<String> warnings) {
      try {
        return get(utilisation.get(cluster));
      } catch (RuntimeException e) {
        LOG.warn("utilisation of {} unavailable: {}", cluster, e.toString());
        warnings.add("GPU utilisation unavailable (" + e.getMessage() + ")");
        return Utilisation.none("utilisation source failed: " + e.getMessage());
      }
    }

    /** The Pricing API calls of the run the first time, 0 from then on. */
    int apiCallsOnce() {
      int calls = counted ? 0 : onDemand.apiCalls() - apiBefore;
      counted = true;
      return calls;
    }
  }

  /** Prices, Spot history, commitments and utilisation for the clusters {@code read}. */
  Prices read(
      List<ClusterTarget> targets,
      Map<String, Inventory> read,
      ReportWindow window,
      Progress progress) {
    onDemand.beginRun();
    int apiBefore = onDemand.apiCalls();
    prefetch(read.values(), window, progress);
    var spotTypes = new TreeSet<String>();
    for (Inventory inv : read.values()) {
      for (NodeRecord n : inv.snapshot().nodes()) {
        if (n.lifecycle() == Lifecycle.SPOT && window.clip(n.start(), n.end()) != null) {
          spotTypes.add(n.instanceType());
        }
      }
    }
    progress.step("reading Spot price history for " + spotTypes.size() + " instance types");
    var warnings = new ArrayList<String>();
    var fUtil = new LinkedHashMap<String, Future<Utilisation>>();
    var side = Executors.newVirtualThreadPerTaskExecutor();
    Future<Commitments> fCommit = side.submit(() -> commitments.read(window));
    for (ClusterTarget t : targets) {
      var inv = read.get(t.name());
      if (inv != null) {
        var gpuNodes =
            inv.snapshot().nodes().stream()
                .filter(n -> n.accelerators() > 0 && window.clip(n.start(), n.end()) != null)
                .toList();
        fUtil.put(t.name(), side.submit(() -> t.utilisation().read(window, gpuNodes)));
      }
    }
    side.shutdown();
    SpotPrices spotPrices;
    try {
      spotPrices = new SpotPrices(spot.history(spotTypes, window.start(), window.end()));
    } catch (RuntimeException e) {
      LOG.warn("Spot price history unavailable: {}", e.toString());
      warnings.add(
          "Spot price history unavailable (" + e.getMessage() + "): Spot nodes at On-Demand price");
      spotPrices = new SpotPrices(List.of());
    }
    Commitments commit;
    try {
      commit = get(fCommit);
    } catch (RuntimeException e) {
      LOG.warn("commitment rates unavailable: {}", e.toString());
      warnings.add("commitment rates unavailable (" + e.getMessage() + "): list prices used");
      commit = Commitments.none("commitment source failed: " + e.getMessage());
    }
    commit.fallbacks().forEach(f -> warnings.add("commitments: " + f));
    progress.step("commitments: " + commit.source());
    return new Prices(spotPrices, commit, warnings, fUtil, onDemand, apiBefore);
  }

  /** One lookup per distinct (region, type), concurrently; the chain is single-flight anyway. */
  private void prefetch(Collection<Inventory> inventories, ReportWindow window, Progress progress) {
    Set<List<String>> keys = new LinkedHashSet<>();
    for (Inventory inv : inventories) {
      for (NodeRecord n : inv.snapshot().nodes()) {
        if (window.clip(n.start(), n.end()) != null && n.instanceType() != null) {
          keys.add(List.of(n.region(), n.instanceType()));
        }
      }
    }
    progress.step("pricing " + keys.size() + " instance types");
    var done = new AtomicInteger();
    var limit = new Semaphore(settings.pricingConcurrency());
    try (var exec = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<?>>();
      for (var k : keys) {
        futures.add(
            exec.submit(
                () -> {
                  limit.acquireUninterruptibly();
                  try {
                    var p = onDemand.hourly(k.get(0), k.get(1));
                    progress.step(
                        "  priced "
                            + done.incrementAndGet()
                            + "/"
                            + keys.size()
                            + ": "
                            + k.get(1)
                            + " "
                            + p.map(
                                    x ->
                                        x.currency()
                                            + " "
                                            + x.perHour().toPlainString()
                                            + "/h ("
                                            + x.source()
                                            + ")")
                                .orElse("unknown"));
                  } finally {
                    limit.release();
                  }
                }));
      }
      for (var f : futures) {
        get(f);
      }
    }
  }
}

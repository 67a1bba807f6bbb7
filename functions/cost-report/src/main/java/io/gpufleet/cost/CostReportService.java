package io.gpufleet.cost;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import io.gpufleet.cost.render.ReportHtml;
import io.gpufleet.cost.render.ReportJson;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run: read the cluster and EC2 (concurrently), merge with the previous inventory snapshot and
 * store the next one, price every (region, instance type) once (concurrently, the Pricing API's
 * token bucket sets the pace), read Spot price history for the window, build the report, write
 * cost.json / cost.csv / cost.html, report the outcome.
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
  private final String region;
  private final List<ClusterTarget> targets;
  private final InstancePort instances;
  private final SpotPriceHistoryPort spot;
  private final OnDemandPrices onDemand;
  private final BlobStorePort store;
  private final OutcomeReporter<CostReporting.Run> reporter;
  private final Clock clock;
  private final CommitmentPort commitments;
  private volatile io.gpufleet.cost.focus.FocusOutput focus =
      io.gpufleet.cost.focus.FocusOutput.OFF;
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

  /** An inventory read and stored, with the notes and warnings it produced. */
  record Inventory(InventorySnapshot snapshot, List<String> clusterNotes, List<String> warnings) {}

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
    this.commitments = commitments;
    this.settings = settings;
    this.region = region;
    this.targets = List.copyOf(targets);
    this.instances = instances;
    this.spot = spot;
    this.onDemand = onDemand;
    this.store = store;
    this.reporter = reporter;
    this.clock = clock;
  }

  /** Also writes each report's rows as FOCUS (Parquet) under focus/ (off by default). */
  public CostReportService withFocus(io.gpufleet.cost.focus.FocusOutput focus) {
    this.focus = Objects.requireNonNull(focus, "focus");
    return this;
  }

  public static String snapshotKey(String cluster) {
    return "inventory/" + cluster + "/snapshot.json";
  }

  public static String reportPrefix(String cluster, ReportWindow w) {
    return "reports/" + cluster + "/" + w.id() + "/";
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

  public CostOutcome run(Request request, Progress progress) {
    long t0 = System.nanoTime();
    Instant now = clock.instant();
    String first = targets.get(0).name();
    ReportWindow window;
    try {
      Clock anchor =
          request.anchor() == null
              ? clock
              : Clock.fixed(request.anchor(), java.time.ZoneOffset.UTC);
      window =
          request.snapshotOnly()
              ? null
              : WindowSpec.resolve(
                  request.window() == null ? settings.defaultWindow() : request.window(), anchor);
    } catch (ConfigException e) {
      var o = CostOutcome.rejected(first, e.getMessage());
      reporter.report(CostReporting.Run.of(o));
      return o;
    }
    // every cluster's inventory, concurrently; one cluster failing fails only its own report
    var inventories = new LinkedHashMap<String, Inventory>();
    var failures = new LinkedHashMap<String, RuntimeException>();
    try (var exec = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new LinkedHashMap<String, Future<Inventory>>();
      for (ClusterTarget t : targets) {
        progress.step("reading nodes, pods and EC2 instances of " + t.name());
        futures.put(t.name(), exec.submit(() -> inventory(t, now)));
      }
      futures.forEach(
          (name, f) -> {
            try {
              inventories.put(name, get(f));
            } catch (RuntimeException e) {
              LOG.error("cluster {} could not be read: {}", name, e.toString(), e);
              failures.put(name, e);
            }
          });
    }
    if (failures.size() == targets.size()) {
      // nothing to report at all: fail the run as one cluster always did (Lambda retries, DLQ)
      throw failures.values().iterator().next();
    }
    for (var inv : inventories.entrySet()) {
      progress.step(
          "inventory"
              + (many() ? " of " + inv.getKey() : "")
              + ": "
              + inv.getValue().snapshot().nodes().size()
              + " nodes, "
              + inv.getValue().snapshot().pods().size()
              + " pods (snapshot stored)");
    }
    var outcomes = new LinkedHashMap<String, CostOutcome>();
    if (request.snapshotOnly()) {
      for (ClusterTarget t : targets) {
        var inv = inventories.get(t.name());
        CostOutcome o;
        if (inv == null) {
          o = failedOutcome(t.name(), null, failures.get(t.name()), t0, "no inventory snapshot");
        } else {
          var next = inv.snapshot();
          o =
              new CostOutcome(
                  CostOutcome.Status.SNAPSHOT,
                  t.name(),
                  null,
                  null,
                  null,
                  "inventory snapshot: "
                      + next.nodes().size()
                      + " nodes, "
                      + next.pods().size()
                      + " pods",
                  java.util.Map.of("snapshot", store.locate(snapshotKey(t.name()))),
                  null,
                  null,
                  null,
                  null,
                  null,
                  null,
                  null,
                  null,
                  next.nodes().size(),
                  next.pods().size(),
                  null,
                  null,
                  null,
                  java.util.Map.of(),
                  null,
                  (System.nanoTime() - t0) / 1_000_000,
                  inv.warnings(),
                  null);
        }
        reporter.report(CostReporting.Run.of(o));
        outcomes.put(t.name(), o);
      }
      return answer(outcomes);
    }
    // shared by every cluster, done once per run: prices, Spot history, commitments
    onDemand.beginRun();
    int apiBefore = onDemand.apiCalls();
    prefetchPrices(inventories.values(), window, progress);
    var spotTypes = new TreeSet<String>();
    for (Inventory inv : inventories.values()) {
      for (NodeRecord n : inv.snapshot().nodes()) {
        if (n.lifecycle() == Lifecycle.SPOT && window.clip(n.start(), n.end()) != null) {
          spotTypes.add(n.instanceType());
        }
      }
    }
    progress.step("reading Spot price history for " + spotTypes.size() + " instance types");
    var shared = new ArrayList<String>();
    Future<Commitments> fCommit;
    var fUtil = new LinkedHashMap<String, Future<Utilisation>>();
    var side = Executors.newVirtualThreadPerTaskExecutor();
    fCommit = side.submit(() -> commitments.read(window));
    for (ClusterTarget t : targets) {
      var inv = inventories.get(t.name());
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
      shared.add(
          "Spot price history unavailable (" + e.getMessage() + "): Spot nodes at On-Demand price");
      spotPrices = new SpotPrices(List.of());
    }
    Commitments commit;
    try {
      commit = get(fCommit);
    } catch (RuntimeException e) {
      LOG.warn("commitment rates unavailable: {}", e.toString());
      shared.add("commitment rates unavailable (" + e.getMessage() + "): list prices used");
      commit = Commitments.none("commitment source failed: " + e.getMessage());
    }
    commit.fallbacks().forEach(f -> shared.add("commitments: " + f));
    progress.step("commitments: " + commit.source());
    var reports = new LinkedHashMap<String, CostReport>();
    boolean pricingCounted = false;
    for (ClusterTarget t : targets) {
      var inv = inventories.get(t.name());
      if (inv == null) {
        var o = failedOutcome(t.name(), window, failures.get(t.name()), t0, "no report written");
        reporter.report(CostReporting.Run.of(o));
        outcomes.put(t.name(), o);
        continue;
      }
      try {
        var warnings = new ArrayList<String>(inv.warnings());
        warnings.addAll(shared);
        Utilisation util;
        try {
          util = get(fUtil.get(t.name()));
        } catch (RuntimeException e) {
          LOG.warn("utilisation of {} unavailable: {}", t.name(), e.toString());
          warnings.add("GPU utilisation unavailable (" + e.getMessage() + ")");
          util = Utilisation.none("utilisation source failed: " + e.getMessage());
        }
        var report =
            report(t.name(), inv, window, now, spotPrices, commit, util, warnings, progress);
        reports.put(t.name(), report);
        progress.step(
            "writing cost.json, cost.csv and cost.html" + (many() ? " of " + t.name() : ""));
        String prefix = reportPrefix(t.name(), window);
        var outputs = new LinkedHashMap<String, String>();
        write(prefix + "cost.json", ReportJson.json(report), "application/json", outputs, "json");
        write(
            prefix + "cost.csv", ReportJson.csv(report), "text/csv; charset=utf-8", outputs, "csv");
        write(
            prefix + "cost.html",
            ReportHtml.html(report),
            "text/html; charset=utf-8",
            outputs,
            "html");
        var f = focus;
        f.key(t.name(), window).ifPresent(k -> outputs.put("focus", f.write(store, k, report)));
        // the run's Pricing API calls are shared: counted once, on the first cluster reported
        int apiCalls = pricingCounted ? 0 : onDemand.apiCalls() - apiBefore;
        pricingCounted = true;
        var o = reported(t.name(), window, report, outputs, apiCalls, t0, warnings);
        reporter.report(new CostReporting.Run(o, report));
        outcomes.put(t.name(), o);
      } catch (RuntimeException e) {
        if (!many()) {
          throw e;
        }
        LOG.error("cost report of cluster {} failed: {}", t.name(), e.toString(), e);
        var o = failedOutcome(t.name(), window, e, t0, "report not written");
        reporter.report(CostReporting.Run.of(o));
        outcomes.put(t.name(), o);
      }
    }
    onDemand.flush();
    lastReports = java.util.Collections.unmodifiableMap(reports);
    lastReport = reports.get(first);
    return answer(outcomes);
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

  private CostReport report(
      String cluster,
      Inventory inv,
      ReportWindow window,
      Instant now,
      SpotPrices spotPrices,
      Commitments commit,
      Utilisation util,
      List<String> warnings,
      Progress progress) {
    progress.step(
        "utilisation"
            + (many() ? " of " + cluster : "")
            + ": "
            + util.source()
            + " ("
            + util.nodePercent().size()
            + " nodes, "
            + util.podPercent().size()
            + " pods, "
            + util.tokens().size()
            + " token series)");
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
            spotPrices,
            List.copyOf(warnings),
            commit,
            util,
            dataSources));
  }

  private CostOutcome reported(
      String cluster,
      ReportWindow window,
      CostReport report,
      Map<String, String> outputs,
      int apiCalls,
      long t0,
      List<String> warnings) {
    var k = report.kpis();
    return new CostOutcome(
        CostOutcome.Status.REPORTED,
        cluster,
        window.spec(),
        window.start(),
        window.end(),
        "cost report for "
            + window.spec()
            + ": "
            + report.header().currency()
            + " "
            + k.totalCost(),
        outputs,
        report.header().currency(),
        k.totalCost(),
        k.onDemandEquivalentCost(),
        k.spotSavings(),
        k.idleGpuPercent(),
        k.idleGpuCost(),
        k.costPerGpuHour(),
        k.projectedMonthTotal(),
        k.nodes(),
        k.pods(),
        k.nodesWithoutEc2Match(),
        k.unpricedNodes(),
        apiCalls,
        report.header().priceSources(),
        settings.rule().name(),
        (System.nanoTime() - t0) / 1_000_000,
        List.copyOf(warnings),
        null);
  }

  private static String describe(String source, List<String> notes) {
    return notes.isEmpty() ? source : source + ": " + String.join("; ", notes);
  }

  private void write(
      String key, byte[] body, String type, LinkedHashMap<String, String> outputs, String name) {
    store.put(key, body, type);
    outputs.put(name, store.locate(key));
  }

  /** Attempts at the snapshot's conditional write before a run gives up (and Lambda retries). */
  static final int SNAPSHOT_WRITE_ATTEMPTS = 5;

  /**
   * Reads cluster and EC2 concurrently, merges with the stored snapshot, stores the next one with a
   * conditional write ({@code If-Match} on the ETag read, {@code If-None-Match: *} for the first):
   * when another run wrote in between, its snapshot is read again and merged, so no row is lost.
   */
  Inventory inventory(ClusterTarget target, Instant now) {
    String cluster = target.name();
    var warnings = java.util.Collections.synchronizedList(new ArrayList<String>());
    List<String> notes;
    List<ClusterNode> nodes;
    List<ClusterPod> pods;
    List<Ec2Instance> ec2;
    BlobStorePort.Versioned stored;
    try (var exec = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<List<ClusterNode>> fNodes = exec.submit(target.reader()::nodes);
      Future<List<ClusterPod>> fPods = exec.submit(target.reader()::pods);
      Future<BlobStorePort.Versioned> fPrev =
          exec.submit(() -> store.getVersioned(snapshotKey(cluster)));
      nodes = get(fNodes);
      var ids = nodes.stream().map(ClusterNode::instanceId).filter(Objects::nonNull).toList();
      Future<List<Ec2Instance>> fEc2 = exec.submit(() -> instances.clusterInstances(cluster, ids));
      pods = get(fPods);
      ec2 = get(fEc2);
      stored = get(fPrev);
      notes = List.copyOf(target.reader().notes());
    }
    String key = snapshotKey(cluster);
    for (int attempt = 1; ; attempt++) {
      var next =
          InventoryMerger.merge(
              cluster,
              region,
              now,
              nodes,
              pods,
              ec2,
              previous(cluster, stored, warnings),
              settings.snapshotRetention(),
              settings.sharingReplicas());
      byte[] body;
      try {
        body = Json.MAPPER.writeValueAsBytes(next);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      if (store.putIfUnchanged(key, body, "application/json", stored.etag())) {
        var all = new ArrayList<String>(warnings);
        all.addAll(notes);
        return new Inventory(next, notes, List.copyOf(all));
      }
      if (attempt == SNAPSHOT_WRITE_ATTEMPTS) {
        throw new IllegalStateException(
            "inventory snapshot "
                + store.locate(key)
                + " changed under "
                + attempt
                + " conditional writes in a row; another run keeps writing it");
      }
      LOG.info("inventory snapshot {} changed since it was read; merging again", store.locate(key));
      stored = store.getVersioned(key);
    }
  }

  private InventorySnapshot previous(
      String cluster, BlobStorePort.Versioned stored, List<String> warnings) {
    String key = snapshotKey(cluster);
    var bytes = stored.body();
    if (bytes.isEmpty()) {
      return InventorySnapshot.empty(cluster);
    }
    try {
      var s = Json.MAPPER.readValue(bytes.get(), InventorySnapshot.class);
      if (s.version() != InventorySnapshot.VERSION || s.nodes() == null || s.pods() == null) {
        throw new IOException("unsupported snapshot version " + s.version());
      }
      return s;
    } catch (IOException e) {
      // a broken snapshot loses history but must not stop today's report
      LOG.warn("inventory snapshot {} unreadable: {}", store.locate(key), e.toString());
      synchronized (warnings) {
        warnings.add(
            "previous inventory snapshot unreadable; nodes gone since the last run are missing");
      }
      return InventorySnapshot.empty(cluster);
    }
  }

  /** One lookup per distinct (region, type), concurrently; the chain is single-flight anyway. */
  private void prefetchPrices(
      java.util.Collection<Inventory> inventories, ReportWindow window, Progress progress) {
    Set<List<String>> keys = new java.util.LinkedHashSet<>();
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

  private static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }
}

package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.preflight.RegionReader.Read;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.PoolFinding;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.SpotScores;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * Runs a preflight: reads every region's facts concurrently (one virtual thread per region, bounded
 * by a semaphore; the region's own reads are {@link RegionReader}'s), asks for Spot placement
 * scores once per Spot entry across all regions, then lets the planner judge and {@link
 * RegionRanking} rank, and judges the NodePools against a region's quotas ({@link
 * PoolQuotaFindings}). A region whose required reads fail or time out is UNKNOWN; the report always
 * completes.
 */
public final class PreflightService {
  /** Progress per region (the CLI prints it to stderr). */
  public interface Progress {
    void started(String region);

    /** The region's reads are done ({@code problem} empty) or failed/timed out. */
    void read(String region, long elapsedMs, java.util.Optional<String> problem);

    Progress NONE =
        new Progress() {
          @Override
          public void started(String region) {}

          @Override
          public void read(String region, long elapsedMs, java.util.Optional<String> problem) {}
        };
  }

  private final CapacityPort ec2;
  private final QuotaPort quotas;
  private final UsagePort usage;
  private final PreflightSettings settings;
  private final PreflightPlanner planner;
  private final RegionReader reader;
  private final PoolQuotaFindings poolQuotas;
  private final Clock clock;

  public PreflightService(
      CapacityPort ec2,
      QuotaPort quotas,
      UsagePort usage,
      OnDemandPrices prices,
      PreflightSettings settings,
      Clock clock) {
    this.ec2 = ec2;
    this.quotas = quotas;
    this.usage = usage;
    this.settings = settings;
    this.planner = new PreflightPlanner(settings.warnPercent(), settings.lowSpotScore());
    this.reader = new RegionReader(ec2, quotas, usage, prices, settings);
    this.poolQuotas = new PoolQuotaFindings(quotas);
    this.clock = clock;
  }

  public PreflightSettings settings() {
    return settings;
  }

  public QuotaPort quotaPort() {
    return quotas;
  }

  public UsagePort usagePort() {
    return usage;
  }

  public PreflightReport run(Plan plan, List<NodePoolSpec> pools, String trigger) {
    return run(plan, pools, null, trigger, Progress.NONE);
  }

  public PreflightReport run(
      Plan plan, List<NodePoolSpec> pools, String trigger, Progress progress) {
    return run(plan, pools, null, trigger, progress);
  }

  /**
   * @param poolRegion the cluster's region, whose quotas the NodePools draw on (null: the first
   *     ranked region with known quotas)
   */
  public PreflightReport run(
      Plan plan, List<NodePoolSpec> pools, String poolRegion, String trigger, Progress progress) {
    long start = System.nanoTime();
    Instant now = clock.instant();
    List<String> regions = plan.allRegions() ? settings.candidateRegions() : plan.regions();
    boolean sequential = settings.regionConcurrency() == 1 && settings.callConcurrency() == 1;
    var results = new ArrayList<RegionResult>();
    var notes = new ArrayList<String>(PreflightPlanner.planWarnings(plan));
    try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
      Map<String, Future<SpotScores>> scoreFutures = new LinkedHashMap<>();
      Map<String, SpotScores> scores = new LinkedHashMap<>();
      for (PlanEntry e : plan.entries()) {
        if (e.capacityType() != CapacityType.SPOT) {
          continue;
        }
        Callable<SpotScores> call =
            () -> ec2.spotPlacementScores(regions, e.instanceTypes(), e.count());
        if (sequential) {
          scores.put(e.name(), safeScores(call));
        } else {
          scoreFutures.put(e.name(), exec.submit(() -> safeScores(call)));
        }
      }
      var regionPermits = new Semaphore(settings.regionConcurrency());
      Map<String, Future<Read>> reads = new LinkedHashMap<>();
      for (String region : regions) {
        Future<Read> f =
            exec.submit(
                () -> {
                  regionPermits.acquire();
                  try {
                    progress.started(region);
                    Read read = reader.read(exec, plan, region, now);
                    progress.read(
                        region, read.elapsedMs(), java.util.Optional.ofNullable(read.problem()));
                    return read;
                  } finally {
                    regionPermits.release();
                  }
                });
        reads.put(region, f);
        if (sequential) {
          awaitQuietly(f);
        }
      }
      scoreFutures.forEach(
          (name, f) -> {
            try {
              scores.put(name, f.get());
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              scores.put(name, SpotScores.unknown("interrupted"));
            } catch (ExecutionException e) {
              scores.put(name, SpotScores.unknown(String.valueOf(e.getCause())));
            }
          });
      for (var entry : reads.entrySet()) {
        String region = entry.getKey();
        Read read;
        try {
          read = entry.getValue().get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          read = new Read(null, "interrupted", 0);
        } catch (ExecutionException e) {
          read = new Read(null, "failed: " + ErrorText.brief(e.getCause()), 0);
        }
        RegionResult result =
            read.facts() == null
                ? RegionResult.unknown(region, read.problem(), read.elapsedMs())
                : planner.evaluate(plan, read.facts(), scores, read.elapsedMs());
        if (plan.allRegions() && read.facts() != null && read.facts().offeredZones().isEmpty()) {
          notes.add(region + ": offers none of " + plan.instanceTypes());
          continue;
        }
        results.add(result);
      }
    }
    var ranked = RegionRanking.rank(results);
    List<PoolFinding> findings = poolQuotas.judge(pools, poolRegion, ranked);
    return new PreflightReport(
        plan.name(),
        now,
        trigger,
        ranked,
        findings,
        List.copyOf(notes),
        (System.nanoTime() - start) / 1_000_000);
  }

  /** NodePool findings against one region's quotas (read now, for every bucket pools can reach). */
  public List<PoolFinding> poolFindings(List<NodePoolSpec> pools, String region) {
    return poolQuotas.findings(pools, region);
  }

  private static void awaitQuietly(Future<?> f) {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // reported when the result is collected
    }
  }

  private static SpotScores safeScores(Callable<SpotScores> call) {
    try {
      return call.call();
    } catch (Exception e) {
      return SpotScores.unknown("GetSpotPlacementScores failed: " + ErrorText.brief(e));
    }
  }
}

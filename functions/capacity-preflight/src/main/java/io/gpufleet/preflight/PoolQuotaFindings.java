package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.PoolFinding;
import io.gpufleet.preflight.model.QuotaValue;
import io.gpufleet.preflight.model.RegionResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The NodePools of a run judged against one region's quotas: the cluster's region when it is known,
 * else the first ranked region whose quotas could be read. Each finding names the region it used.
 */
final class PoolQuotaFindings {
  private final QuotaPort quotas;

  PoolQuotaFindings(QuotaPort quotas) {
    this.quotas = quotas;
  }

  /** Findings against {@code poolRegion}, or (null) against the first ranked region with quotas. */
  List<PoolFinding> judge(List<NodePoolSpec> pools, String poolRegion, List<RegionResult> ranked) {
    if (pools.isEmpty()) {
      return List.of();
    }
    return poolRegion != null ? findings(pools, poolRegion) : firstWithQuotas(pools, ranked);
  }

  private List<PoolFinding> firstWithQuotas(List<NodePoolSpec> pools, List<RegionResult> ranked) {
    // pools are judged against the quotas of the first region with known quotas: the cluster's
    // region when the CLI names it first; the finding says which region it used
    for (RegionResult r : ranked) {
      if (r.quotas().stream().anyMatch(q -> q.quota() != null)) {
        return findings(pools, r.region());
      }
    }
    return List.of(
        new PoolFinding("*", PoolFinding.INFO, "no region with known quotas to judge NodePools"));
  }

  /** NodePool findings against one region's quotas (read now, for every bucket pools can reach). */
  List<PoolFinding> findings(List<NodePoolSpec> pools, String region) {
    var analyzer = new NodePoolAnalyzer();
    var keys = new TreeSet<QuotaBucket.Key>();
    for (var p : pools) {
      analyzer.exposures(p).forEach(x -> keys.add(x.key()));
      for (CapacityType ct : NodePoolAnalyzer.capacityTypes(p)) {
        keys.add(new QuotaBucket.Key(QuotaBucket.G_VT, ct));
      }
    }
    Map<QuotaBucket.Key, QuotaValue> q = quotas.quotas(region, keys);
    var out = new ArrayList<PoolFinding>();
    for (var f : analyzer.analyze(pools, q)) {
      out.add(new PoolFinding(f.nodePool(), f.severity(), f.message() + " [" + region + "]"));
    }
    return out;
  }
}

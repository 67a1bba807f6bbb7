package io.gpufleet.preflight;

import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.PoolFinding;
import io.gpufleet.preflight.model.QuotaValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pure: the offline review of NodePool manifests ({@code gpufleet preflight --nodepools}): each
 * quota bucket's worst case per pool and summed, against the quota when known; every pool finding
 * (limits, summed limits, inference/training lint); and whether each DRA workload's provisioner can
 * serve it.
 */
public final class PoolReview {
  /** One quota bucket: each pool's worst-case vCPU, their sum, and the quota (null: unknown). */
  public record Bucket(String quota, Map<String, Double> pools, double total, Double quotaVcpu) {
    public boolean exceeds() {
      return quotaVcpu != null && total > quotaVcpu;
    }
  }

  public record Result(
      List<String> nodePools, List<Bucket> buckets, List<PoolFinding> findings, String verdict) {}

  private PoolReview() {}

  public static Result review(
      List<NodePoolSpec> pools,
      List<DraCheck.DraWorkload> workloads,
      DraCheck.Provisioners provisioners,
      Map<QuotaBucket.Key, QuotaValue> quotas) {
    var analyzer = new NodePoolAnalyzer();
    var sums = new TreeMap<QuotaBucket.Key, Map<String, Double>>();
    for (NodePoolSpec p : pools) {
      analyzer
          .worstCase(p)
          .forEach((k, v) -> sums.computeIfAbsent(k, x -> new LinkedHashMap<>()).put(p.name(), v));
    }
    var buckets = new ArrayList<Bucket>();
    sums.forEach(
        (k, perPool) -> {
          QuotaValue q = quotas.get(k);
          buckets.add(
              new Bucket(
                  k.label(),
                  Map.copyOf(perPool),
                  perPool.values().stream().mapToDouble(Double::doubleValue).sum(),
                  q == null ? null : q.value()));
        });
    var findings = new ArrayList<PoolFinding>();
    findings.addAll(new DraCheck(provisioners).check(workloads, pools));
    findings.addAll(analyzer.analyze(pools, quotas));
    String verdict =
        findings.stream().anyMatch(f -> PoolFinding.NO_GO.equals(f.severity()))
            ? "NO_GO"
            : findings.stream().anyMatch(f -> PoolFinding.WARNING.equals(f.severity()))
                ? "GO_WITH_WARNINGS"
                : "GO";
    return new Result(
        pools.stream().map(NodePoolSpec::name).toList(), List.copyOf(buckets), findings, verdict);
  }
}

package io.gpufleet.preflight.model;

import java.time.Instant;
import java.util.List;

/**
 * The answer to "where does my plan fit, and what stops it elsewhere?": regions ranked best first,
 * NodePool findings when a cluster was read.
 */
public record PreflightReport(
    String plan,
    Instant generatedAt,
    String trigger,
    List<RegionResult> regions,
    List<PoolFinding> nodePools,
    List<String> notes,
    long elapsedMs) {

  public long count(Verdict v) {
    return regions.stream().filter(r -> r.verdict() == v).count();
  }

  /** The best region when it is GO or GO_WITH_WARNINGS. */
  public java.util.Optional<RegionResult> best() {
    return regions.stream()
        .filter(r -> r.verdict() == Verdict.GO || r.verdict() == Verdict.GO_WITH_WARNINGS)
        .findFirst();
  }
}

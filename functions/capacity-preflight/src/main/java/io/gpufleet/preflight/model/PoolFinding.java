package io.gpufleet.preflight.model;

/**
 * A finding about one Karpenter NodePool (or, for summed limits, several joined by "+"; for DRA,
 * the workload that cannot be served): NO_GO (the fleet cannot work as written), WARNING or INFO.
 */
public record PoolFinding(String nodePool, String severity, String message) {
  public static final String NO_GO = "NO_GO";
  public static final String WARNING = "WARNING";
  public static final String INFO = "INFO";
}

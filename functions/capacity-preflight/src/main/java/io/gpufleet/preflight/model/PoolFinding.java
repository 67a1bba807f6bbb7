package io.gpufleet.preflight.model;

/** A warning or note about one Karpenter NodePool's limits against the quotas. */
public record PoolFinding(String nodePool, String severity, String message) {
  public static final String WARNING = "WARNING";
  public static final String INFO = "INFO";
}

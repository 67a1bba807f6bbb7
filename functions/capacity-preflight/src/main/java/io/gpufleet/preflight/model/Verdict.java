package io.gpufleet.preflight.model;

/** Whether a plan fits a region, best first. */
public enum Verdict {
  GO,
  GO_WITH_WARNINGS,
  NO_GO,
  /** The region's facts could not be read (calls failed or timed out). */
  UNKNOWN
}

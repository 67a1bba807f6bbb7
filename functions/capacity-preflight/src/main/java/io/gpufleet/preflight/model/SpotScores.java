package io.gpufleet.preflight.model;

import java.util.Map;
import java.util.Optional;

/**
 * Spot placement scores (1-10) per region for one plan entry, or why they are unknown (the 24-hour
 * configuration cap, a missing permission, a failed call).
 */
public record SpotScores(Map<String, Integer> byRegion, Optional<String> unknownReason) {
  public static SpotScores unknown(String reason) {
    return new SpotScores(Map.of(), Optional.of(reason));
  }

  public static SpotScores of(Map<String, Integer> byRegion) {
    return new SpotScores(Map.copyOf(byRegion), Optional.empty());
  }
}

package io.gpufleet.preflight.model;

import java.util.Map;
import java.util.Optional;

/**
 * Spot placement scores (1-10) per region for one plan entry, or why they are unknown (the 24-hour
 * configuration cap, a missing permission, a failed call): for every region ({@code unknownReason})
 * or, when only some of the calls failed, per region ({@code unknownRegions}).
 */
public record SpotScores(
    Map<String, Integer> byRegion,
    Optional<String> unknownReason,
    Map<String, String> unknownRegions) {
  public SpotScores {
    byRegion = Map.copyOf(byRegion);
    unknownRegions = Map.copyOf(unknownRegions);
  }

  public static SpotScores unknown(String reason) {
    return new SpotScores(Map.of(), Optional.of(reason), Map.of());
  }

  public static SpotScores of(Map<String, Integer> byRegion) {
    return new SpotScores(byRegion, Optional.empty(), Map.of());
  }

  /** Scores for some regions; {@code unknownRegions}: region → why its score is unknown. */
  public static SpotScores partial(
      Map<String, Integer> byRegion, Map<String, String> unknownRegions) {
    return new SpotScores(byRegion, Optional.empty(), unknownRegions);
  }

  /** Why this region's score is unknown, if it is. */
  public Optional<String> unknownIn(String region) {
    return unknownReason.or(() -> Optional.ofNullable(unknownRegions.get(region)));
  }
}

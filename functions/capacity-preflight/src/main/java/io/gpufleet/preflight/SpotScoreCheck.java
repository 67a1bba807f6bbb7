package io.gpufleet.preflight;

import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.SpotScores;
import java.util.List;

/**
 * A Spot entry's placement score in one region: a warning when it is at or below the low score, a
 * note when it is unknown or AWS did not return the region (it returns the best-scoring regions
 * only, so such a region counts as 1 for the region's score).
 */
final class SpotScoreCheck {
  /**
   * @param entry the entry's score (null when unknown or not returned)
   * @param region what it makes of the region's score, the lowest of its entries' (null: nothing)
   */
  record Scored(Integer entry, Integer region) {}

  private final int lowSpotScore;

  SpotScoreCheck(int lowSpotScore) {
    this.lowSpotScore = lowSpotScore;
  }

  /** {@code s}: the entry's scores across the regions (null when none were asked for). */
  Scored check(
      PlanEntry entry, String region, SpotScores s, List<String> warnings, List<String> notes) {
    if (s == null || s.unknownIn(region).isPresent()) {
      notes.add(
          "Spot placement score unknown for '"
              + entry.name()
              + "'"
              + (s == null ? "" : ": " + s.unknownIn(region).get()));
      return new Scored(null, null);
    }
    if (s.byRegion().containsKey(region)) {
      int score = s.byRegion().get(region);
      if (score <= lowSpotScore) {
        warnings.add(
            "Spot placement score "
                + score
                + "/10 for '"
                + entry.name()
                + "' ("
                + entry.count()
                + " × "
                + String.join("|", entry.instanceTypes())
                + "): a Spot request of this size is unlikely to be fulfilled"
                + (PreflightPlanner.fewSpotTypes(entry)
                    ? " (with fewer than "
                        + PreflightPlanner.MIN_SPOT_TYPES
                        + " instance types AWS always scores low: list more types)"
                    : ""));
      }
      return new Scored(score, score);
    }
    notes.add(
        "no Spot placement score returned for '"
            + entry.name()
            + "' here (AWS returns the best-scoring regions only)");
    return new Scored(null, 1);
  }
}

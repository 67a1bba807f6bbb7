package io.gpufleet.preflight;

import io.gpufleet.preflight.model.RegionResult;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The order regions are reported in, best first, and their rank numbers. */
public final class RegionRanking {
  private static final Comparator<RegionResult> RANKING =
      Comparator.comparing(RegionResult::verdict)
          .thenComparing(
              (RegionResult r) -> r.spotScore() == null ? Integer.MIN_VALUE : r.spotScore(),
              Comparator.reverseOrder())
          .thenComparing(
              RegionResult::hourlyCost, Comparator.nullsLast(Comparator.<BigDecimal>naturalOrder()))
          .thenComparing(RegionResult::region);

  private RegionRanking() {}

  /** Best first: fits (verdict), then Spot score (higher first), then hourly cost, then name. */
  public static List<RegionResult> rank(List<RegionResult> results) {
    var sorted = new ArrayList<>(results);
    sorted.sort(RANKING);
    var out = new ArrayList<RegionResult>();
    for (int i = 0; i < sorted.size(); i++) {
      out.add(sorted.get(i).withRank(i + 1));
    }
    return List.copyOf(out);
  }
}

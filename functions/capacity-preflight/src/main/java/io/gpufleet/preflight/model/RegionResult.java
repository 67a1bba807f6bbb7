package io.gpufleet.preflight.model;

import java.math.BigDecimal;
import java.util.List;

/**
 * The verdict for one region with its human reasons: {@code blockers} make it NO_GO (or explain
 * UNKNOWN), {@code warnings} make it GO_WITH_WARNINGS, {@code notes} are information. {@code
 * hourlyCost} is the plan's estimated cost per hour in {@code currency} (null when no price is
 * known; {@code costComplete} false when some prices were missing).
 */
public record RegionResult(
    int rank,
    String region,
    Verdict verdict,
    List<String> blockers,
    List<String> warnings,
    List<String> notes,
    List<QuotaNeed> quotas,
    List<EntryChoice> choices,
    Integer spotScore,
    BigDecimal hourlyCost,
    String currency,
    boolean costComplete,
    long elapsedMs) {

  public RegionResult withRank(int newRank) {
    return new RegionResult(
        newRank,
        region,
        verdict,
        blockers,
        warnings,
        notes,
        quotas,
        choices,
        spotScore,
        hourlyCost,
        currency,
        costComplete,
        elapsedMs);
  }

  public static RegionResult unknown(String region, String reason, long elapsedMs) {
    return new RegionResult(
        0,
        region,
        Verdict.UNKNOWN,
        List.of(reason),
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        null,
        null,
        null,
        false,
        elapsedMs);
  }
}

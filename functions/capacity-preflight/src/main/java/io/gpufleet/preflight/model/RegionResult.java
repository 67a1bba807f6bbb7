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
    return toBuilder().rank(newRank).build();
  }

  public static RegionResult unknown(String region, String reason, long elapsedMs) {
    return builder(region, Verdict.UNKNOWN).blockers(List.of(reason)).elapsedMs(elapsedMs).build();
  }

  /**
   * A result for {@code region} with that verdict, rank 0, no reasons, quotas or choices, no Spot
   * score and no cost.
   */
  public static Builder builder(String region, Verdict verdict) {
    return new Builder(
        new RegionResult(
            0, region, verdict, List.of(), List.of(), List.of(), List.of(), List.of(), null, null,
            null, false, 0));
  }

  /** A builder that starts from this result. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Sets components one by one; {@link #build()} makes the record. */
  public static final class Builder {
    private int rank;
    private String region;
    private Verdict verdict;
    private List<String> blockers;
    private List<String> warnings;
    private List<String> notes;
    private List<QuotaNeed> quotas;
    private List<EntryChoice> choices;
    private Integer spotScore;
    private BigDecimal hourlyCost;
    private String currency;
    private boolean costComplete;
    private long elapsedMs;

    private Builder(RegionResult r) {
      rank = r.rank;
      region = r.region;
      verdict = r.verdict;
      blockers = r.blockers;
      warnings = r.warnings;
      notes = r.notes;
      quotas = r.quotas;
      choices = r.choices;
      spotScore = r.spotScore;
      hourlyCost = r.hourlyCost;
      currency = r.currency;
      costComplete = r.costComplete;
      elapsedMs = r.elapsedMs;
    }

    public Builder rank(int v) {
      rank = v;
      return this;
    }

    public Builder blockers(List<String> v) {
      blockers = v;
      return this;
    }

    public Builder warnings(List<String> v) {
      warnings = v;
      return this;
    }

    public Builder notes(List<String> v) {
      notes = v;
      return this;
    }

    public Builder quotas(List<QuotaNeed> v) {
      quotas = v;
      return this;
    }

    public Builder choices(List<EntryChoice> v) {
      choices = v;
      return this;
    }

    public Builder spotScore(Integer v) {
      spotScore = v;
      return this;
    }

    /** The plan's hourly cost, in which currency, and whether every entry had a price. */
    public Builder cost(BigDecimal hourly, String inCurrency, boolean complete) {
      hourlyCost = hourly;
      currency = inCurrency;
      costComplete = complete;
      return this;
    }

    public Builder elapsedMs(long v) {
      elapsedMs = v;
      return this;
    }

    public RegionResult build() {
      return new RegionResult(
          rank,
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
  }
}

package io.gpufleet.preflight;

import io.gpufleet.core.catalog.Regions;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Preflight configuration. Environment variables (also CLI flags):
 *
 * <ul>
 *   <li>{@code PREFLIGHT_PLAN}: the plan itself (YAML or JSON), or {@code PREFLIGHT_PLAN_S3_URI}:
 *       {@code s3://bucket/key} of it; used by the daily schedule and to judge alarms
 *   <li>{@code PREFLIGHT_CANDIDATE_REGIONS}: regions a plan with {@code regions: all} looks at
 *       (default: the regions every account has enabled)
 *   <li>{@code PREFLIGHT_REGION_CONCURRENCY} (default 17), {@code PREFLIGHT_CALL_CONCURRENCY} (per
 *       region, default 8), {@code PREFLIGHT_REGION_TIMEOUT} (default 20s): after it a region is
 *       UNKNOWN
 *   <li>{@code PREFLIGHT_WARN_PERCENT} (default 80), {@code PREFLIGHT_LOW_SPOT_SCORE} (default 3)
 *   <li>{@code PREFLIGHT_CAPACITY_BLOCK_HOURS} (default 24): duration asked of Capacity Blocks, one
 *       EC2 takes ({@link CapacityBlocks#DURATIONS})
 *   <li>{@code RESULTS_BUCKET}, {@code RESULTS_PREFIX} (default preflight/): where reports and
 *       dedupe markers go
 *   <li>{@code QUOTA_INCREASE_ENABLED} (default false), {@code QUOTA_INCREASE_MAX_VCPU}: never ask
 *       for more than this; {@code QUOTA_INCREASE_FACTOR} (default 2): ask for quota × factor or
 *       what the plan needs, whichever is more, capped
 * </ul>
 */
public record PreflightSettings(
    Optional<String> planText,
    Optional<String> planS3Uri,
    List<String> candidateRegions,
    int regionConcurrency,
    int callConcurrency,
    Duration regionTimeout,
    double warnPercent,
    int lowSpotScore,
    int capacityBlockHours,
    Optional<String> resultsBucket,
    String resultsPrefix,
    boolean increaseEnabled,
    double increaseMaxVcpu,
    double increaseFactor) {

  public static PreflightSettings defaults() {
    return new PreflightSettings(
        Optional.empty(),
        Optional.empty(),
        Regions.DEFAULT_ENABLED,
        17,
        8,
        Duration.ofSeconds(20),
        80,
        3,
        24,
        Optional.empty(),
        "preflight/",
        false,
        0,
        2);
  }

  public PreflightSettings withConcurrency(int regions, int calls) {
    return toBuilder().regionConcurrency(regions).callConcurrency(calls).build();
  }

  public PreflightSettings withRegionTimeout(Duration timeout) {
    return toBuilder().regionTimeout(timeout).build();
  }

  public PreflightSettings withIncrease(boolean enabled, double maxVcpu) {
    return toBuilder().increaseEnabled(enabled).increaseMaxVcpu(maxVcpu).build();
  }

  public PreflightSettings withPlanText(String text) {
    return toBuilder().planText(Optional.ofNullable(text)).build();
  }

  /** A builder that starts from these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Changes settings one by one; {@link #build()} makes the record. */
  public static final class Builder {
    private Optional<String> planText;
    private Optional<String> planS3Uri;
    private List<String> candidateRegions;
    private int regionConcurrency;
    private int callConcurrency;
    private Duration regionTimeout;
    private double warnPercent;
    private int lowSpotScore;
    private int capacityBlockHours;
    private Optional<String> resultsBucket;
    private String resultsPrefix;
    private boolean increaseEnabled;
    private double increaseMaxVcpu;
    private double increaseFactor;

    private Builder(PreflightSettings s) {
      planText = s.planText;
      planS3Uri = s.planS3Uri;
      candidateRegions = s.candidateRegions;
      regionConcurrency = s.regionConcurrency;
      callConcurrency = s.callConcurrency;
      regionTimeout = s.regionTimeout;
      warnPercent = s.warnPercent;
      lowSpotScore = s.lowSpotScore;
      capacityBlockHours = s.capacityBlockHours;
      resultsBucket = s.resultsBucket;
      resultsPrefix = s.resultsPrefix;
      increaseEnabled = s.increaseEnabled;
      increaseMaxVcpu = s.increaseMaxVcpu;
      increaseFactor = s.increaseFactor;
    }

    public Builder planText(Optional<String> v) {
      planText = v;
      return this;
    }

    public Builder planS3Uri(Optional<String> v) {
      planS3Uri = v;
      return this;
    }

    public Builder candidateRegions(List<String> v) {
      candidateRegions = v;
      return this;
    }

    public Builder regionConcurrency(int v) {
      regionConcurrency = v;
      return this;
    }

    public Builder callConcurrency(int v) {
      callConcurrency = v;
      return this;
    }

    public Builder regionTimeout(Duration v) {
      regionTimeout = v;
      return this;
    }

    public Builder warnPercent(double v) {
      warnPercent = v;
      return this;
    }

    public Builder lowSpotScore(int v) {
      lowSpotScore = v;
      return this;
    }

    public Builder capacityBlockHours(int v) {
      capacityBlockHours = v;
      return this;
    }

    public Builder resultsBucket(Optional<String> v) {
      resultsBucket = v;
      return this;
    }

    public Builder resultsPrefix(String v) {
      resultsPrefix = v;
      return this;
    }

    public Builder increaseEnabled(boolean v) {
      increaseEnabled = v;
      return this;
    }

    public Builder increaseMaxVcpu(double v) {
      increaseMaxVcpu = v;
      return this;
    }

    public Builder increaseFactor(double v) {
      increaseFactor = v;
      return this;
    }

    public PreflightSettings build() {
      return new PreflightSettings(
          planText,
          planS3Uri,
          candidateRegions,
          regionConcurrency,
          callConcurrency,
          regionTimeout,
          warnPercent,
          lowSpotScore,
          capacityBlockHours,
          resultsBucket,
          resultsPrefix,
          increaseEnabled,
          increaseMaxVcpu,
          increaseFactor);
    }
  }

  public static PreflightSettings from(Settings s) {
    var candidates = new ArrayList<String>();
    for (String r : s.string("PREFLIGHT_CANDIDATE_REGIONS", "").split(",")) {
      if (r.isBlank()) {
        continue;
      }
      if (!Regions.known(r.trim())) {
        throw new ConfigException(
            "PREFLIGHT_CANDIDATE_REGIONS names unknown region '" + r.trim() + "'");
      }
      candidates.add(r.trim());
    }
    var planS3 = s.optional("PREFLIGHT_PLAN_S3_URI");
    planS3.ifPresent(PreflightSettings::checkS3Uri);
    boolean increase = s.bool("QUOTA_INCREASE_ENABLED", false);
    double cap = s.integer("QUOTA_INCREASE_MAX_VCPU", 0, 0, 1_000_000);
    if (increase && cap <= 0) {
      throw new ConfigException(
          "QUOTA_INCREASE_ENABLED=true needs QUOTA_INCREASE_MAX_VCPU (the most vCPU ever to ask for)");
    }
    String prefix = s.string("RESULTS_PREFIX", "preflight/");
    return new PreflightSettings(
        s.optional("PREFLIGHT_PLAN"),
        planS3,
        candidates.isEmpty() ? Regions.DEFAULT_ENABLED : List.copyOf(candidates),
        s.integer("PREFLIGHT_REGION_CONCURRENCY", 17, 1, 64),
        s.integer("PREFLIGHT_CALL_CONCURRENCY", 8, 1, 64),
        s.duration("PREFLIGHT_REGION_TIMEOUT", Duration.ofSeconds(20), Duration.ofMinutes(10)),
        s.integer("PREFLIGHT_WARN_PERCENT", 80, 1, 100),
        s.integer("PREFLIGHT_LOW_SPOT_SCORE", 3, 1, 10),
        blockHours(s),
        s.optional("RESULTS_BUCKET"),
        prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/",
        increase,
        cap,
        s.integer("QUOTA_INCREASE_FACTOR", 2, 1, 10));
  }

  /** PREFLIGHT_CAPACITY_BLOCK_HOURS, held to the durations EC2 takes before anything is asked. */
  private static int blockHours(Settings s) {
    String name = "PREFLIGHT_CAPACITY_BLOCK_HOURS";
    int hours =
        s.integer(
            name, CapacityBlocks.MIN_HOURS, CapacityBlocks.MIN_HOURS, CapacityBlocks.MAX_HOURS);
    try {
      return CapacityBlocks.checkDuration(name, hours);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** Splits s3://bucket/key; a precise error when it is not one. */
  public static String[] checkS3Uri(String uri) {
    var m =
        java.util.regex.Pattern.compile("s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])/(.+)")
            .matcher(uri);
    if (!m.matches()) {
      throw new ConfigException("'" + uri + "' is not an S3 URI like s3://bucket/plans/plan.yaml");
    }
    return new String[] {m.group(1), m.group(2)};
  }
}

package io.gpufleet.preflight;

import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.QuotaBucket;
import java.util.Set;

/**
 * Capacity Blocks for ML as EC2 takes them: durations in 1-day steps up to 14 days, then 7-day
 * steps up to 182 days (EC2 refuses other values); at most {@value #MAX_PER_BLOCK} instances in one
 * block and {@value #MAX_PER_ACCOUNT} across an account's blocks; offered for P and Trainium
 * families. Pure.
 */
public final class CapacityBlocks {
  /** Instances one Capacity Block can hold. */
  public static final int MAX_PER_BLOCK = 64;

  /** Instances across all of an account's Capacity Blocks. */
  public static final int MAX_PER_ACCOUNT = 256;

  static final int DAY = 24;
  static final int WEEK = 7 * DAY;
  public static final int MIN_HOURS = DAY;

  /** 14 days, the last of the 1-day steps. */
  static final int LAST_DAILY = 14 * DAY;

  /** 182 days (26 weeks), the longest block. */
  public static final int MAX_HOURS = 182 * DAY;

  /** The quota buckets whose families EC2 offers as Capacity Blocks. */
  static final Set<QuotaBucket> OFFERED = Set.of(QuotaBucket.P, QuotaBucket.TRN);

  /** The durations EC2 takes, for people (errors, the settings reference). */
  public static final String DURATIONS =
      MIN_HOURS
          + ".."
          + LAST_DAILY
          + " hours in steps of "
          + DAY
          + " (1 to 14 days), or "
          + (LAST_DAILY + WEEK)
          + ".."
          + MAX_HOURS
          + " in steps of "
          + WEEK
          + " (3 to 26 weeks)";

  private CapacityBlocks() {}

  /** Whether EC2 takes {@code hours} as a Capacity Block duration. */
  public static boolean validDuration(int hours) {
    if (hours < MIN_HOURS || hours > MAX_HOURS) {
      return false;
    }
    return hours <= LAST_DAILY ? hours % DAY == 0 : hours % WEEK == 0;
  }

  /**
   * {@code hours} when EC2 takes it; otherwise a precise error naming the value, the steps EC2
   * takes and the nearest durations it would.
   */
  public static int checkDuration(String name, int hours) {
    if (validDuration(hours)) {
      return hours;
    }
    int below = hours;
    while (below >= MIN_HOURS && !validDuration(below)) {
      below--;
    }
    int above = hours;
    while (above <= MAX_HOURS && !validDuration(above)) {
      above++;
    }
    var near = new StringBuilder();
    if (below >= MIN_HOURS) {
      near.append(below);
    }
    if (above <= MAX_HOURS) {
      near.append(near.isEmpty() ? "" : " or ").append(above);
    }
    throw new IllegalArgumentException(
        name
            + "="
            + hours
            + " is not a Capacity Block duration EC2 takes: "
            + DURATIONS
            + (near.isEmpty() ? "" : "; nearest: " + near));
  }

  /** Whether EC2 offers Capacity Blocks of this type's family (P and Trainium). */
  public static boolean offered(String instanceType) {
    return OFFERED.contains(InstanceCatalog.bucketOf(instanceType));
  }

  /** Blocks needed for {@code count} instances (each holds at most {@link #MAX_PER_BLOCK}). */
  public static int blocksFor(int count) {
    return count <= 0 ? 0 : (count + MAX_PER_BLOCK - 1) / MAX_PER_BLOCK;
  }
}

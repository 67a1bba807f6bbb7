package io.gpufleet.core.pricing;

import java.util.Optional;

/**
 * Port: the On-Demand (Linux, shared tenancy) hourly price of an instance type in a region. Empty
 * means no source knows it; callers report the price as unknown rather than fail.
 */
@FunctionalInterface
public interface OnDemandPrices {

  Optional<HourlyPrice> hourly(String region, String instanceType);

  /**
   * Starts a run (one report over every cluster): prices an earlier run fetched are reported as
   * cached from now on. Sources without such state ignore it.
   */
  default void beginRun() {}

  /** Pricing API lookups made so far (0 for sources that never call the API). */
  default int apiCalls() {
    return 0;
  }

  /** Persists what this run fetched, where the source keeps prices between runs. */
  default void flush() {}

  /** A source that knows no price (for callers configured without pricing). */
  static OnDemandPrices none() {
    return (region, instanceType) -> Optional.empty();
  }
}

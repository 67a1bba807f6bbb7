package io.gpufleet.core.pricing;

import java.util.Optional;

/**
 * Port: the On-Demand (Linux, shared tenancy) hourly price of an instance type in a region. Empty
 * means no source knows it; callers report the price as unknown rather than fail.
 */
@FunctionalInterface
public interface OnDemandPrices {

  Optional<HourlyPrice> hourly(String region, String instanceType);

  /** A source that knows no price (for callers configured without pricing). */
  static OnDemandPrices none() {
    return (region, instanceType) -> Optional.empty();
  }
}

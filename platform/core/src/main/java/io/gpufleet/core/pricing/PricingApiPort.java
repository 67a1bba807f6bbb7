package io.gpufleet.core.pricing;

import java.math.BigDecimal;
import java.util.Optional;

/** Port: one Pricing API lookup (GetProducts with the On-Demand Linux filters). */
@FunctionalInterface
public interface PricingApiPort {

  /**
   * The hourly price, or empty when the API knows no such product; throws when the call fails
   * (throttled after retries, network, access denied).
   */
  Optional<BigDecimal> hourly(String region, String instanceType);
}

package io.gpufleet.core.pricing;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Objects;
import java.util.Optional;

/**
 * The hourly price of one instance type in one region, with its currency (USD, or CNY in the China
 * regions), where it came from and, for cached or static prices, the date it was last known good.
 */
public record HourlyPrice(
    String region,
    String instanceType,
    BigDecimal perHour,
    String currency,
    PriceSource source,
    Optional<LocalDate> asOf) {

  public HourlyPrice {
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(instanceType, "instanceType");
    Objects.requireNonNull(perHour, "perHour");
    Objects.requireNonNull(currency, "currency");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(asOf, "asOf");
    if (perHour.signum() < 0) {
      throw new IllegalArgumentException("negative price for " + instanceType + " in " + region);
    }
  }
}

package io.gpufleet.core.catalog;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Objects;

/**
 * A static On-Demand price (USD per hour, Linux, shared tenancy, us-east-1) with where it comes
 * from and as of when.
 */
public record StaticPrice(BigDecimal usdPerHour, Source source) {
  public StaticPrice {
    Objects.requireNonNull(usdPerHour, "usdPerHour");
    Objects.requireNonNull(source, "source");
  }

  public LocalDate asOf() {
    return source.asOf();
  }

  /** A price source: its id, as-of date and a description for reports. */
  public record Source(String id, LocalDate asOf, String description) {}
}

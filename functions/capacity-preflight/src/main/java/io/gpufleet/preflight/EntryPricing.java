package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.RegionFacts;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one instance of an entry's chosen type costs per hour in a region: for Spot the lowest
 * recent price over the zones it would use, for On-Demand the price read for the region, only when
 * it is in the region's own currency (a price in another currency is noted, not added).
 */
final class EntryPricing {
  /** A known price per hour and where it came from ({@code spot-history}, or the price source). */
  record UnitPrice(BigDecimal perHour, String source) {}

  private EntryPricing() {}

  /** The unit price, or null when none is known. */
  static UnitPrice of(
      PlanEntry entry,
      String chosen,
      List<String> zones,
      RegionFacts facts,
      String regionCurrency,
      List<String> notes) {
    if (entry.capacityType() == CapacityType.SPOT) {
      // Spot price history is in the region's own currency (CNY in China)
      var perZone = facts.spotPrices().getOrDefault(chosen, Map.of());
      BigDecimal unit =
          zones.stream()
              .map(perZone::get)
              .filter(p -> p != null)
              .min(Comparator.naturalOrder())
              .orElse(null);
      return unit == null ? null : new UnitPrice(unit, "spot-history");
    }
    HourlyPrice p = facts.onDemandPrices().get(chosen);
    if (p != null && !p.currency().equals(regionCurrency)) {
      notes.add(
          "On-Demand price of "
              + chosen
              + " in "
              + p.currency()
              + " not added: "
              + facts.region()
              + " is priced in "
              + regionCurrency);
      return null;
    }
    if (p == null) {
      return null;
    }
    return new UnitPrice(p.perHour(), p.source().name().toLowerCase(Locale.ROOT));
  }
}

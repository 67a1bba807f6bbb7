package io.gpufleet.core.pricing;

import io.gpufleet.core.catalog.CatalogEntry;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.StaticPrice;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The last-resort price table, used when neither the Pricing API nor a cached price answers. Its
 * rows live in the generated instance catalog ({@link InstanceCatalog#entries()}), each with its
 * own source and as-of date, and every price it gives is labelled {@link PriceSource#STATIC} with
 * its row's date.
 *
 * <p>Sources ({@code scripts/catalog/prices-us-east-1.tsv}): the accelerated types' us-east-1 Linux
 * On-Demand prices as instances.vantage.sh published them on 2026-01-21 ({@link #AS_OF}; P4d, P4de,
 * P5 and P5en after the June 2025 price cut); the few system-node CPU types keep the old hand-typed
 * figures of 2025-05-01, marked unverified. Types without a sourced price (p5e, g7, trn2, dl1, vt1,
 * ...) have none here. Other commercial and China regions have no static entries: a price from the
 * wrong region would be presented as fact.
 *
 * <p>GovCloud is the exception: it has no Pricing API endpoint (and a call to the commercial one
 * would cross partitions), so this table is its only price. It gives the us-east-1 figure, labelled
 * {@link PriceSource#STATIC} with its as-of date, and {@link #sourceFor} states that it is the
 * us-east-1 list price, not GovCloud's own.
 */
public final class StaticPrices implements OnDemandPrices {
  public static final String REGION = "us-east-1";

  private static final Map<String, StaticPrice> TABLE = new TreeMap<>();
  private static final Map<String, StaticPrice.Source> SOURCES = new TreeMap<>();

  static {
    for (CatalogEntry e : InstanceCatalog.entries()) {
      e.staticPrice()
          .ifPresent(
              p -> {
                TABLE.put(e.instanceType(), p);
                SOURCES.put(p.source().id(), p.source());
              });
    }
  }

  /** The as-of date of the accelerated types' prices (the newest source of the table). */
  public static final LocalDate AS_OF =
      SOURCES.values().stream()
          .map(StaticPrice.Source::asOf)
          .max(LocalDate::compareTo)
          .orElseThrow();

  /** The table's sources, newest first, in words for reports. */
  public static final String SOURCE = describeSources();

  private static String describeSources() {
    var parts = new ArrayList<String>();
    SOURCES.values().stream()
        .sorted(Comparator.comparing(StaticPrice.Source::asOf).reversed())
        .forEach(
            s -> {
              var types =
                  TABLE.entrySet().stream()
                      .filter(e -> e.getValue().source().equals(s))
                      .map(Map.Entry::getKey)
                      .toList();
              String which =
                  types.stream().allMatch(t -> InstanceCatalog.find(t).isPresent())
                      ? "accelerated types"
                      : String.join(", ", types);
              parts.add(which + ": " + s.description() + " (as of " + s.asOf() + ")");
            });
    return "Linux/shared On-Demand, us-east-1; " + String.join("; ", parts);
  }

  /** The static price of a type, if one is sourced. */
  public static Optional<StaticPrice> price(String instanceType) {
    return Optional.ofNullable(instanceType == null ? null : TABLE.get(instanceType));
  }

  public static java.util.Set<String> instanceTypes() {
    return java.util.Collections.unmodifiableSet(TABLE.keySet());
  }

  /** Where this table's price for {@code region} comes from, in words for reports. */
  public static String sourceFor(String region) {
    if (PricingEndpoint.partitionOf(region).equals("aws-us-gov")) {
      return "static table: "
          + SOURCE
          + ", used for "
          + region
          + " because GovCloud has no Pricing API endpoint; it is the us-east-1 list price, not"
          + " GovCloud's own";
    }
    return "static table: " + SOURCE;
  }

  @Override
  public Optional<HourlyPrice> hourly(String region, String instanceType) {
    if (!REGION.equals(region) && !PricingEndpoint.partitionOf(region).equals("aws-us-gov")) {
      return Optional.empty();
    }
    return price(instanceType)
        .map(
            p ->
                new HourlyPrice(
                    region,
                    instanceType,
                    p.usdPerHour(),
                    "USD",
                    PriceSource.STATIC,
                    Optional.of(p.asOf())));
  }
}

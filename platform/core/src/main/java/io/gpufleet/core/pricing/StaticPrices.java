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
    // plain loops, no lambdas or streams: this runs in the cold start of the functions that price
    for (CatalogEntry e : InstanceCatalog.entries()) {
      StaticPrice p = e.price();
      if (p != null) {
        TABLE.put(e.instanceType(), p);
        SOURCES.put(p.source().id(), p.source());
      }
    }
  }

  /** The as-of date of the accelerated types' prices (the newest source of the table). */
  public static final LocalDate AS_OF = newestSource().asOf();

  /** The table's sources, newest first, in words for reports. */
  public static final String SOURCE = describeSources();

  private static StaticPrice.Source newestSource() {
    StaticPrice.Source newest = null;
    for (StaticPrice.Source s : SOURCES.values()) {
      if (newest == null || s.asOf().isAfter(newest.asOf())) {
        newest = s;
      }
    }
    if (newest == null) {
      throw new IllegalStateException("the instance catalog has no static prices");
    }
    return newest;
  }

  private static String describeSources() {
    var sources = new ArrayList<>(SOURCES.values());
    sources.sort(
        new Comparator<StaticPrice.Source>() {
          @Override
          public int compare(StaticPrice.Source a, StaticPrice.Source b) {
            return b.asOf().compareTo(a.asOf()); // newest first
          }
        });
    var out = new StringBuilder("Linux/shared On-Demand, us-east-1");
    for (StaticPrice.Source s : sources) {
      var types = new ArrayList<String>();
      boolean allAccelerated = true;
      for (var e : TABLE.entrySet()) {
        if (e.getValue().source().id().equals(s.id())) {
          types.add(e.getKey());
          allAccelerated &= InstanceCatalog.find(e.getKey()).isPresent();
        }
      }
      out.append("; ")
          .append(allAccelerated ? "accelerated types" : String.join(", ", types))
          .append(": ")
          .append(s.description())
          .append(" (as of ")
          .append(s.asOf())
          .append(')');
    }
    return out.toString();
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

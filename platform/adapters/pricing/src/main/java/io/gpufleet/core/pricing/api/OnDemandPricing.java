package io.gpufleet.core.pricing.api;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.pricing.BlobPriceCache;
import io.gpufleet.core.pricing.OnDemandPriceChain;
import io.gpufleet.core.pricing.PriceCache;
import io.gpufleet.core.pricing.PricingApiPort;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.store.BlobStorePort;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * Builds the On-Demand price chain any function uses through the {@link OnDemandPrices} port:
 * Pricing API (endpoint by partition, token bucket) → memory → persisted cache → static table.
 *
 * <p>Settings (environment variables, also CLI flags):
 *
 * <ul>
 *   <li>{@code PRICING_ENDPOINT_REGION}: us-east-1, eu-central-1, ap-south-1 or cn-northwest-1
 *       (default: by the priced region's partition)
 *   <li>{@code PRICING_RATE_PER_SECOND} (default 5) and {@code PRICING_BURST} (default 10)
 *   <li>{@code PRICING_API} (default true): false = cache and static table only
 *   <li>{@code PRICE_CACHE_TTL} (default 168h): a persisted price younger than this is used without
 *       asking the API
 *   <li>{@code PRICE_CACHE_KEY} (default pricing/on-demand-prices.json): the blob holding the cache
 * </ul>
 */
public final class OnDemandPricing {
  static final Set<String> ENDPOINT_REGIONS =
      Set.of("us-east-1", "eu-central-1", "ap-south-1", "cn-northwest-1");

  private OnDemandPricing() {}

  /**
   * @param cacheStore where to persist prices between runs (the report bucket); empty = memory only
   */
  public static OnDemandPriceChain create(
      AwsClients aws, Settings settings, Optional<BlobStorePort> cacheStore, Clock clock) {
    var endpoint = settings.optional("PRICING_ENDPOINT_REGION");
    if (endpoint.isPresent() && !ENDPOINT_REGIONS.contains(endpoint.get())) {
      throw new ConfigException(
          "PRICING_ENDPOINT_REGION='"
              + endpoint.get()
              + "' is not a Pricing API endpoint region (us-east-1, eu-central-1, ap-south-1,"
              + " cn-northwest-1)");
    }
    int rate = settings.integer("PRICING_RATE_PER_SECOND", 5, 1, 100);
    int burst = settings.integer("PRICING_BURST", 10, 1, 100);
    Optional<PricingApiPort> api =
        settings.bool("PRICING_API", true)
            ? Optional.of(new PricingApiAdapter(aws, endpoint, rate, burst))
            : Optional.empty();
    return create(api, settings, cacheStore, clock);
  }

  /** The same chain over any {@link PricingApiPort} (tests, the simulator, benchmarks). */
  public static OnDemandPriceChain create(
      Optional<PricingApiPort> api,
      Settings settings,
      Optional<BlobStorePort> cacheStore,
      Clock clock) {
    Duration ttl =
        settings.duration("PRICE_CACHE_TTL", Duration.ofHours(168), Duration.ofDays(365));
    String key = settings.string("PRICE_CACHE_KEY", "pricing/on-demand-prices.json");
    PriceCache cache =
        cacheStore.<PriceCache>map(s -> new BlobPriceCache(s, key)).orElse(PriceCache.NONE);
    return new OnDemandPriceChain(api, cache, new StaticPrices(), clock, ttl, Duration.ofHours(6));
  }
}

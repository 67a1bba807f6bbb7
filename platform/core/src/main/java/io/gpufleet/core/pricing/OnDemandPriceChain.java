package io.gpufleet.core.pricing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On-Demand prices from, in order: this process's memory, the persisted cache when it is fresh, the
 * Pricing API, the persisted cache even when stale, the static table. Lookups of one (region,
 * instance type) are single-flight: concurrent callers share one API call, and within a run (see
 * {@link #beginRun()}) the API is asked at most once per key. Prices the API gave in an earlier run
 * are labelled {@link PriceSource#CACHE} with the date they were fetched.
 *
 * <p>Call {@link #flush()} at the end of a run to persist what the API returned.
 */
public final class OnDemandPriceChain implements OnDemandPrices {
  private static final Logger LOG = LoggerFactory.getLogger(OnDemandPriceChain.class);

  private record Key(String region, String instanceType) {}

  private record Resolved(Optional<HourlyPrice> price, Instant at, int run) {}

  private final Optional<PricingApiPort> api;
  private final PriceCache cache;
  private final OnDemandPrices fallback;
  private final Clock clock;
  private final Duration cacheTtl;
  private final Duration memoryTtl;
  private final Map<Key, CompletableFuture<Resolved>> memory = new ConcurrentHashMap<>();
  private final Map<Key, PriceCache.Entry> fetched = new ConcurrentHashMap<>();
  private volatile Map<Key, PriceCache.Entry> persisted;
  private volatile int run;
  private final AtomicInteger apiCalls = new AtomicInteger();
  private final AtomicInteger apiFailures = new AtomicInteger();

  /**
   * @param api empty = never call the Pricing API (offline runs)
   * @param cacheTtl how long a persisted price is used without asking the API
   * @param memoryTtl how long a warm process keeps an answer in memory
   */
  public OnDemandPriceChain(
      Optional<PricingApiPort> api,
      PriceCache cache,
      OnDemandPrices fallback,
      Clock clock,
      Duration cacheTtl,
      Duration memoryTtl) {
    this.api = api;
    this.cache = cache;
    this.fallback = fallback;
    this.clock = clock;
    this.cacheTtl = cacheTtl;
    this.memoryTtl = memoryTtl;
  }

  /** Starts a new run: API prices of earlier runs are from now on reported as cached. */
  @Override
  public void beginRun() {
    run++;
  }

  /** API lookups made so far (each is one GetProducts call, more only when it pages). */
  @Override
  public int apiCalls() {
    return apiCalls.get();
  }

  public int apiFailures() {
    return apiFailures.get();
  }

  @Override
  public Optional<HourlyPrice> hourly(String region, String instanceType) {
    var key = new Key(region, instanceType);
    while (true) {
      var mine = new CompletableFuture<Resolved>();
      var existing = memory.putIfAbsent(key, mine);
      if (existing == null) {
        try {
          mine.complete(new Resolved(resolve(key), clock.instant(), run));
        } catch (RuntimeException e) {
          memory.remove(key, mine);
          mine.completeExceptionally(e);
          throw e;
        }
        return mine.join().price();
      }
      Resolved r = existing.join();
      if (Duration.between(r.at(), clock.instant()).compareTo(memoryTtl) > 0) {
        memory.remove(key, existing);
        continue;
      }
      if (r.run() != run && r.price().isPresent() && r.price().get().source() == PriceSource.API) {
        var p = r.price().get();
        return Optional.of(
            new HourlyPrice(
                p.region(),
                p.instanceType(),
                p.perHour(),
                p.currency(),
                PriceSource.CACHE,
                Optional.of(LocalDate.ofInstant(r.at(), ZoneOffset.UTC))));
      }
      return r.price();
    }
  }

  private Optional<HourlyPrice> resolve(Key key) {
    var cached = Optional.ofNullable(persisted().get(key));
    Instant now = clock.instant();
    if (cached.isPresent()
        && Duration.between(cached.get().fetchedAt(), now).compareTo(cacheTtl) <= 0) {
      return Optional.of(fromCache(cached.get()));
    }
    // GovCloud has no Pricing endpoint and another partition's must not be called: cache, static
    if (api.isPresent() && PricingEndpoint.hasPricingEndpoint(key.region())) {
      try {
        apiCalls.incrementAndGet();
        var price = api.get().hourly(key.region(), key.instanceType());
        if (price.isPresent()) {
          String currency = PricingEndpoint.currencyFor(key.region());
          fetched.put(
              key,
              new PriceCache.Entry(key.region(), key.instanceType(), price.get(), currency, now));
          return Optional.of(
              new HourlyPrice(
                  key.region(),
                  key.instanceType(),
                  price.get(),
                  currency,
                  PriceSource.API,
                  Optional.empty()));
        }
        LOG.info(
            "Pricing API has no On-Demand Linux price for {} in {}",
            key.instanceType(),
            key.region());
      } catch (RuntimeException e) {
        apiFailures.incrementAndGet();
        LOG.warn(
            "Pricing API failed for {} in {}, using {}: {}",
            key.instanceType(),
            key.region(),
            cached.isPresent() ? "the cached price" : "the static table",
            e.toString());
      }
    }
    if (cached.isPresent()) {
      return Optional.of(fromCache(cached.get()));
    }
    return fallback.hourly(key.region(), key.instanceType());
  }

  private static HourlyPrice fromCache(PriceCache.Entry e) {
    return new HourlyPrice(
        e.region(),
        e.instanceType(),
        e.perHour(),
        e.currency(),
        PriceSource.CACHE,
        Optional.of(LocalDate.ofInstant(e.fetchedAt(), ZoneOffset.UTC)));
  }

  private Map<Key, PriceCache.Entry> persisted() {
    var p = persisted;
    if (p == null) {
      synchronized (this) {
        p = persisted;
        if (p == null) {
          var loaded = new HashMap<Key, PriceCache.Entry>();
          for (var e : cache.load()) {
            loaded.put(new Key(e.region(), e.instanceType()), e);
          }
          persisted = p = loaded;
        }
      }
    }
    return p;
  }

  /** Persists the prices the API returned (merged over what was persisted); no-op if none. */
  @Override
  public void flush() {
    if (fetched.isEmpty()) {
      return;
    }
    var merged = new HashMap<>(persisted());
    merged.putAll(fetched);
    var entries = new ArrayList<>(merged.values());
    entries.sort(
        java.util.Comparator.comparing(PriceCache.Entry::region)
            .thenComparing(PriceCache.Entry::instanceType));
    cache.save(entries);
    synchronized (this) {
      persisted = merged;
    }
    fetched.clear();
  }
}

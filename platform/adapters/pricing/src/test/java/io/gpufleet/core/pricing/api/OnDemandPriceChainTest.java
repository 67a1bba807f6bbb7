package io.gpufleet.core.pricing.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.config.Settings;
import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.OnDemandPriceChain;
import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.core.pricing.PricingApiPort;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.store.MemoryBlobStore;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OnDemandPriceChainTest {
  final MemoryBlobStore store = new MemoryBlobStore();
  final Instant now = Instant.parse("2026-11-30T02:00:00Z");
  Clock clock = Clock.fixed(now, ZoneOffset.UTC);

  /** A Pricing API fake: prices by type, counts calls, fails while failing > 0. */
  static final class FakeApi implements PricingApiPort {
    final Map<String, BigDecimal> prices = new ConcurrentHashMap<>();
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger failing = new AtomicInteger();
    final List<String> asked = java.util.Collections.synchronizedList(new ArrayList<>());
    volatile CountDownLatch gate;

    @Override
    public Optional<BigDecimal> hourly(String region, String instanceType) {
      calls.incrementAndGet();
      asked.add(region + "/" + instanceType);
      if (gate != null) {
        try {
          gate.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      if (failing.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new IllegalStateException("ThrottlingException: Rate exceeded");
      }
      return Optional.ofNullable(prices.get(instanceType));
    }
  }

  final FakeApi api = new FakeApi();

  OnDemandPriceChain chain() {
    return OnDemandPricing.create(
        Optional.of(api), new Settings(Map.of()), Optional.of(store), clock);
  }

  @Test
  void shouldAskTheApiOncePerRegionAndTypeEvenWhenCalledConcurrently() throws Exception {
    api.prices.put("g6e.12xlarge", new BigDecimal("10.49264"));
    api.gate = new CountDownLatch(1);
    var chain = chain();
    var results = new ArrayList<java.util.concurrent.Future<Optional<HourlyPrice>>>();
    try (var exec = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 50; i++) {
        results.add(exec.submit(() -> chain.hourly("us-east-1", "g6e.12xlarge")));
      }
      api.gate.countDown();
      for (var r : results) {
        assertThat(r.get().get().source()).isEqualTo(PriceSource.API);
      }
    }
    assertThat(api.calls.get()).isEqualTo(1);
    assertThat(chain.apiCalls()).isEqualTo(1);
  }

  @Test
  void shouldPersistApiPricesAndLabelThemCacheInTheNextProcess() {
    api.prices.put("g5.xlarge", new BigDecimal("1.006"));
    var first = chain();
    assertThat(first.hourly("us-east-1", "g5.xlarge").get().source()).isEqualTo(PriceSource.API);
    first.flush();

    var second = chain();
    var p = second.hourly("us-east-1", "g5.xlarge").get();

    assertThat(p.source()).isEqualTo(PriceSource.CACHE);
    assertThat(p.asOf()).contains(LocalDate.of(2026, 11, 30));
    assertThat(p.perHour()).isEqualByComparingTo("1.006");
    assertThat(api.calls.get()).isEqualTo(1);
  }

  @Test
  void shouldLabelAnEarlierRunsApiPriceAsCacheInAWarmProcess() {
    api.prices.put("g5.xlarge", new BigDecimal("1.006"));
    var chain = chain();
    chain.beginRun();
    assertThat(chain.hourly("us-east-1", "g5.xlarge").get().source()).isEqualTo(PriceSource.API);
    chain.beginRun();
    assertThat(chain.hourly("us-east-1", "g5.xlarge").get().source()).isEqualTo(PriceSource.CACHE);
    assertThat(api.calls.get()).isEqualTo(1);
  }

  @Test
  void shouldUseAStaleCachedPriceWhenTheApiIsThrottled() {
    api.prices.put("g5.xlarge", new BigDecimal("1.006"));
    var first = chain();
    first.hourly("us-east-1", "g5.xlarge");
    first.flush();
    clock = Clock.fixed(now.plus(Duration.ofDays(30)), ZoneOffset.UTC); // cache is stale now
    api.failing.set(100);

    var p = chain().hourly("us-east-1", "g5.xlarge").get();

    assertThat(p.source()).isEqualTo(PriceSource.CACHE);
    assertThat(p.asOf()).contains(LocalDate.of(2026, 11, 30));
    assertThat(api.calls.get()).isEqualTo(2);
  }

  @Test
  void shouldFallBackToTheStaticTableWithItsDateWhenNothingElseAnswers() {
    api.failing.set(100);

    var p = chain().hourly("us-east-1", "p5.48xlarge").get();

    assertThat(p.source()).isEqualTo(PriceSource.STATIC);
    assertThat(p.asOf()).contains(StaticPrices.AS_OF);
    assertThat(chain().hourly("eu-west-1", "p5.48xlarge")).isEmpty();
  }

  @Test
  void shouldNotCallTheApiForAFreshCachedPrice() {
    api.prices.put("g5.xlarge", new BigDecimal("1.006"));
    var first = chain();
    first.hourly("us-east-1", "g5.xlarge");
    first.flush();
    clock = Clock.fixed(now.plus(Duration.ofDays(6)), ZoneOffset.UTC);

    chain().hourly("us-east-1", "g5.xlarge");

    assertThat(api.calls.get()).isEqualTo(1);
  }
}

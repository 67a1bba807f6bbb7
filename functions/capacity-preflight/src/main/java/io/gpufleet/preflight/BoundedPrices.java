package io.gpufleet.preflight;

import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.OnDemandPrices;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * On-Demand prices with a bounded wait. The Pricing API allows about 5 requests a second, so a
 * first run over 17 regions × 12 types would spend ~40 s on prices alone and push regions past
 * their timeout. A price that is not known within {@code wait} is reported as unknown; the lookup
 * keeps going in the background and fills the chain's caches (memory and S3), so the next run has
 * it. Prices never decide a verdict, only the cost estimate.
 */
public final class BoundedPrices implements OnDemandPrices, AutoCloseable {
  private final OnDemandPrices delegate;
  private final Duration wait;
  private final ExecutorService lookups = Executors.newVirtualThreadPerTaskExecutor();

  public BoundedPrices(OnDemandPrices delegate, Duration wait) {
    this.delegate = delegate;
    this.wait = wait;
  }

  @Override
  public Optional<HourlyPrice> hourly(String region, String instanceType) {
    var lookup = lookups.submit(() -> delegate.hourly(region, instanceType));
    try {
      return lookup.get(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return Optional.empty();
    } catch (ExecutionException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  public void beginRun() {
    delegate.beginRun();
  }

  @Override
  public int apiCalls() {
    return delegate.apiCalls();
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  @Override
  public void close() {
    lookups.shutdownNow();
  }
}

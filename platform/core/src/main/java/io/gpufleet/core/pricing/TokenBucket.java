package io.gpufleet.core.pricing;

import io.gpufleet.core.time.Sleeper;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A token bucket shared by every caller of one API endpoint: {@code ratePerSecond} sustained, at
 * most {@code burst} at once. {@link #acquire()} waits (through the injected sleeper) until a token
 * is free; callers queue fairly because the wait is computed under the lock and reserved.
 */
public final class TokenBucket {
  private final double ratePerNano;
  private final double burst;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;
  private double tokens;
  private long last;

  public TokenBucket(double ratePerSecond, int burst, LongSupplier nanoTime, Sleeper sleeper) {
    if (!(ratePerSecond > 0) || burst < 1) {
      throw new IllegalArgumentException("rate must be > 0 and burst >= 1");
    }
    this.ratePerNano = ratePerSecond / 1e9;
    this.burst = burst;
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
    this.tokens = burst;
    this.last = nanoTime.getAsLong();
  }

  public static TokenBucket system(double ratePerSecond, int burst) {
    return new TokenBucket(ratePerSecond, burst, System::nanoTime, Sleeper.SYSTEM);
  }

  /** Takes one token, waiting as long as needed; returns how long it waited. */
  public Duration acquire() throws InterruptedException {
    long waitNanos;
    synchronized (this) {
      long now = nanoTime.getAsLong();
      tokens = Math.min(burst, tokens + (now - last) * ratePerNano);
      last = now;
      tokens -= 1;
      // a negative balance is a reservation: this caller waits until it is paid back
      waitNanos = tokens >= 0 ? 0 : (long) Math.ceil(-tokens / ratePerNano);
    }
    var wait = Duration.ofNanos(waitNanos);
    sleeper.sleep(wait);
    return wait;
  }
}

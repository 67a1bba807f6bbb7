package io.gpufleet.sim;

import io.gpufleet.core.time.Sleeper;
import io.gpufleet.core.time.TimeSource;
import java.time.Duration;
import java.time.Instant;

/**
 * Simulated time that runs {@code speed} times faster than the wall clock, from a start instant.
 * The clock and the sleeper agree, so code that waits for "two minutes" through them finishes in
 * 120/speed real seconds and sees two minutes pass.
 */
public final class SimTime implements TimeSource {
  private final Instant start;
  private final long startNanos;
  private final double speed;

  public SimTime(Instant start, double speed) {
    if (!(speed > 0)) {
      throw new IllegalArgumentException("speed must be > 0, got " + speed);
    }
    this.start = start;
    this.startNanos = System.nanoTime();
    this.speed = speed;
  }

  public static SimTime realTime() {
    return new SimTime(Instant.now(), 1.0);
  }

  public double speed() {
    return speed;
  }

  @Override
  public Instant now() {
    long elapsed = System.nanoTime() - startNanos;
    return start.plusNanos((long) (elapsed * speed));
  }

  /** Real time that corresponds to a simulated duration. */
  public Duration toReal(Duration simulated) {
    return Duration.ofNanos((long) (simulated.toNanos() / speed));
  }

  @Override
  public Sleeper sleeper() {
    return d -> Sleeper.SYSTEM.sleep(toReal(d));
  }
}

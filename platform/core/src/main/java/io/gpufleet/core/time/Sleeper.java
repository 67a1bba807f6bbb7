package io.gpufleet.core.time;

import java.time.Duration;

/**
 * Waits for a while. Injected next to a {@link java.time.Clock} so that retry loops and polling run
 * in simulated time in tests and in {@code gpufleet simulate}.
 */
@FunctionalInterface
public interface Sleeper {
  void sleep(Duration duration) throws InterruptedException;

  Sleeper SYSTEM =
      duration -> {
        if (!duration.isNegative() && !duration.isZero()) {
          Thread.sleep(duration);
        }
      };
}

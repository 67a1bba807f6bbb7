package io.gpufleet.core.time;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Simulated time: a clock and a sleeper that agree, so code that waits through the sleeper sees the
 * clock move by what it slept. {@link VirtualTime} (tests: sleeping moves time at once) and the
 * simulator's accelerated real time are the two kinds; simulated servers read {@link #now()} to run
 * their own time-dependent behaviour on the same time as the code under test.
 */
public interface TimeSource {
  /** The calling thread's current instant. */
  Instant now();

  Sleeper sleeper();

  /** A UTC {@link Clock} reading {@link #now()}. */
  default Clock clock() {
    return new Clock() {
      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return now();
      }
    };
  }
}

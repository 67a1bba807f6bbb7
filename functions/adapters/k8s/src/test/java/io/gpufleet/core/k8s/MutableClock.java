package io.gpufleet.core.k8s;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A test clock that only moves when told to. */
final class MutableClock extends Clock {
  private Instant now;

  MutableClock(Instant start) {
    this.now = start;
  }

  void advance(Duration by) {
    now = now.plus(by);
  }

  void set(Instant instant) {
    now = instant;
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("MutableClock is UTC only");
  }
}

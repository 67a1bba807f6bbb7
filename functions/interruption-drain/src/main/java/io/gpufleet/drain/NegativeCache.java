package io.gpufleet.drain;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Instance ids recently found in none of the stack's clusters, each remembered for {@code ttl}, at
 * most {@code maxEntries} of them (the oldest entry goes first). Thread-safe. A TTL of zero turns
 * the cache off.
 */
public final class NegativeCache {
  private final Duration ttl;
  private final int maxEntries;
  private final Clock clock;
  private final LinkedHashMap<String, Instant> expiries;

  public NegativeCache(Duration ttl, int maxEntries, Clock clock) {
    if (ttl.isNegative() || maxEntries < 1) {
      throw new IllegalArgumentException("ttl >= 0 and maxEntries >= 1 required");
    }
    this.ttl = ttl;
    this.maxEntries = maxEntries;
    this.clock = clock;
    this.expiries =
        new LinkedHashMap<>(16, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
            return size() > NegativeCache.this.maxEntries;
          }
        };
  }

  /** True while {@code instanceId} was recorded less than the TTL ago. */
  synchronized boolean contains(String instanceId) {
    Instant until = expiries.get(instanceId);
    if (until == null) {
      return false;
    }
    if (!clock.instant().isBefore(until)) {
      expiries.remove(instanceId);
      return false;
    }
    return true;
  }

  synchronized void add(String instanceId) {
    if (ttl.isZero()) {
      return;
    }
    // re-inserting moves the id to the young end, so a re-confirmed id is evicted last
    expiries.remove(instanceId);
    expiries.put(instanceId, clock.instant().plus(ttl));
  }

  /** A node appeared for the instance: forget it at once. */
  synchronized void remove(String instanceId) {
    expiries.remove(instanceId);
  }

  synchronized int size() {
    return expiries.size();
  }

  Duration ttl() {
    return ttl;
  }
}

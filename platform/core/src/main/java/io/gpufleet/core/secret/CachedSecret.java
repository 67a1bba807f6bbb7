package io.gpufleet.core.secret;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.crac.Core;
import org.crac.Resource;

/**
 * A secret read on first use and kept for a time-to-live, so a rotated value is picked up within
 * the TTL and a warm container does not call the store on every invocation. Nothing is read at
 * construction; before a SnapStart checkpoint the value is dropped, so no snapshot holds it.
 */
public final class CachedSecret implements Supplier<String>, Resource {
  private final SecretRef ref;
  private final SecretPort reader;
  private final Duration ttl;
  private final Clock clock;
  private String value;
  private Instant readAt;
  private int reads;

  public CachedSecret(SecretRef ref, SecretPort reader, Duration ttl, Clock clock) {
    this.ref = ref;
    this.reader = reader;
    this.ttl = ttl;
    this.clock = clock;
  }

  /** As the constructor, and registered with CRaC so the value is dropped before a checkpoint. */
  public static CachedSecret registered(
      SecretRef ref, SecretPort reader, Duration ttl, Clock clock) {
    var secret = new CachedSecret(ref, reader, ttl, clock);
    // CRaC keeps only a weak reference; the notifier holding this secret keeps it alive.
    Core.getGlobalContext().register(secret);
    return secret;
  }

  public SecretRef ref() {
    return ref;
  }

  @Override
  public synchronized String get() {
    Instant now = clock.instant();
    if (value == null || !now.isBefore(readAt.plus(ttl))) {
      value = reader.read(ref);
      readAt = now;
      reads++;
    }
    return value;
  }

  /** Forgets the value (next use reads again), e.g. after the store refused it as unusable. */
  public synchronized void invalidate() {
    value = null;
    readAt = null;
  }

  synchronized int reads() {
    return reads;
  }

  synchronized boolean holdsValue() {
    return value != null;
  }

  @Override
  public void beforeCheckpoint(org.crac.Context<? extends Resource> context) {
    invalidate();
  }

  @Override
  public void afterRestore(org.crac.Context<? extends Resource> context) {}

  @Override
  public String toString() {
    return "CachedSecret[" + ref + "]";
  }
}

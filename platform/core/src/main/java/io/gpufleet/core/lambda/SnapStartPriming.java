package io.gpufleet.core.lambda;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A function's SnapStart hooks: before the snapshot, run its read-only paths so their classes are
 * loaded and compiled; after a restore, renew what {@link SnapStart} holds (credentials, EKS token,
 * API-server connections of INIT). Each function registers one from its handler's constructor.
 *
 * <p>The CRaC context holds resources weakly, so the one registered last for each owner class is
 * kept here; registering again for the same owner (a test or CLI run building several handlers)
 * replaces it rather than accumulating hooks.
 */
public final class SnapStartPriming implements Resource {
  private static final Map<Class<?>, SnapStartPriming> KEPT = new ConcurrentHashMap<>();

  private final Logger log;
  private final String primed;
  private final Runnable prime;

  private SnapStartPriming(Class<?> owner, String primed, Runnable prime) {
    this.log = LoggerFactory.getLogger(owner);
    this.primed = Objects.requireNonNull(primed, "primed");
    this.prime = Objects.requireNonNull(prime, "prime");
  }

  /**
   * Registers the hooks of {@code owner} (whose logger writes the lifecycle lines) with the global
   * CRaC context; {@code prime} must capture no credentials, tokens or time, and {@code primed}
   * names what it primes in the log line.
   */
  public static SnapStartPriming register(Class<?> owner, String primed, Runnable prime) {
    var priming = new SnapStartPriming(owner, primed, prime);
    KEPT.put(owner, priming);
    Core.getGlobalContext().register(priming);
    return priming;
  }

  @Override
  public void beforeCheckpoint(Context<? extends Resource> context) {
    prime.run();
    SnapStart.log(log, "snapstart beforeCheckpoint: {} primed", primed);
  }

  /**
   * One snapshot resumes many environments, hours after its INIT: drop the credentials, EKS token
   * and API-server connections of INIT (the next call resolves them afresh, nothing here does I/O).
   */
  @Override
  public void afterRestore(Context<? extends Resource> context) {
    int renewed = SnapStart.afterRestore();
    SnapStart.log(
        log,
        "snapstart afterRestore: renewed {} credentials, token and connection holders",
        renewed);
  }
}

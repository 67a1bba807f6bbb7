package io.gpufleet.core.lambda;

import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * Random numbers that are not the same in every environment a SnapStart snapshot resumes: a
 * generator seeded in INIT (or by {@code ThreadLocalRandom}'s seeder, which a snapshot carries)
 * would give each restored environment the same sequence, so a burst of drains would retry refused
 * evictions in lockstep, the very thing the jitter is for. This one is reseeded from the operating
 * system's entropy after every restore ({@link SnapStart#afterRestore()}) and on first use.
 */
public final class FreshRandom implements SnapStart.Renewable {
  private static final FreshRandom SHARED = new FreshRandom();

  static {
    SnapStart.register(SHARED);
  }

  private SplittableRandom random;
  private long seed;

  private FreshRandom() {}

  /** A value in {@code [0, bound)} ({@code bound} > 0). */
  public static long nextLong(long bound) {
    return SHARED.next(bound);
  }

  /** The seed in use (a test's view: it changes at each restore). */
  static synchronized long seed() {
    SHARED.next(1);
    return SHARED.seed;
  }

  private synchronized long next(long bound) {
    if (random == null) {
      byte[] b = new SecureRandom().generateSeed(8);
      long s = 0;
      for (byte x : b) {
        s = (s << 8) | (x & 0xff);
      }
      seed = s;
      random = new SplittableRandom(s);
    }
    return random.nextLong(bound);
  }

  @Override
  public synchronized void renew() {
    random = null;
  }
}

package io.gpufleet.core.lambda;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * The one source of randomness for jitter and backoff in this project, safe across SnapStart
 * restores.
 *
 * <p>One snapshot resumes many execution environments. Any generator whose state lives in memory
 * ({@code ThreadLocalRandom}'s seeder, {@code Random}, {@code SplittableRandom}, a seeded {@code
 * SecureRandom}) is copied into every one of them, so environments restored from one snapshot would
 * draw the same "random" delays and retry in lockstep during a burst. Here the generator is created
 * on first use and dropped by {@link #renew()}, which every function's CRaC {@code afterRestore}
 * hook calls (through {@link SnapStart#afterRestore()}); the next draw creates a new one, seeded
 * from the operating system after the restore. The generator is a deterministic PRNG once seeded
 * (SHA1PRNG): uniqueness comes from when it is seeded, not from the algorithm.
 */
public final class RestoreSafeRandom {
  private static volatile SecureRandom generator;

  private RestoreSafeRandom() {}

  /** Uniform in [0, 1). */
  public static double nextDouble() {
    return generator().nextDouble();
  }

  /** Uniform in [0, bound); {@code bound} must be positive. */
  public static long nextLong(long bound) {
    return generator().nextLong(bound);
  }

  /** Uniform in [origin, bound). */
  public static int nextInt(int origin, int bound) {
    return generator().nextInt(origin, bound);
  }

  /** Drops the generator: the next draw seeds a new one (call after a restore, no I/O here). */
  public static void renew() {
    generator = null;
  }

  /** The current generator, created (and seeded from the OS on first draw) when there is none. */
  static SecureRandom generator() {
    SecureRandom g = generator;
    if (g == null) {
      synchronized (RestoreSafeRandom.class) {
        g = generator;
        if (g == null) {
          g = create();
          generator = g;
        }
      }
    }
    return g;
  }

  /**
   * Puts {@code copy} in place of the current generator: what a restore from a snapshot does to
   * memory, for the runtime tier's emulation of one snapshot restored twice.
   */
  static void reinstate(SecureRandom copy) {
    generator = copy;
  }

  private static SecureRandom create() {
    try {
      return SecureRandom.getInstance("SHA1PRNG");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK's SUN provider has no SHA1PRNG", e);
    }
  }
}

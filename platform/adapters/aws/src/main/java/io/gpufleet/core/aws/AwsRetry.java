package io.gpufleet.core.aws;

import io.gpufleet.core.lambda.RestoreSafeRandom;
import io.gpufleet.core.time.Sleeper;
import java.time.Duration;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * Retry policy of the project's protocol clients: at most {@code maxAttempts} attempts; before
 * attempt n+1 a sleep drawn uniformly from [0, min(cap, base * 2^(n-1))] (full jitter), through an
 * injectable {@link Sleeper} (virtual in tests). The standard jitter comes from {@link
 * RestoreSafeRandom}, so environments restored from one SnapStart snapshot do not retry in
 * lockstep.
 */
public record AwsRetry(
    int maxAttempts, Duration base, Duration cap, Sleeper sleeper, DoubleSupplier jitter) {
  public AwsRetry {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
    }
  }

  /** As the SDK's standard retry mode: 3 attempts, 100 ms base, 20 s cap, real sleeps. */
  public static AwsRetry standard() {
    return new AwsRetry(
        3,
        Duration.ofMillis(100),
        Duration.ofSeconds(20),
        Sleeper.SYSTEM,
        RestoreSafeRandom::nextDouble);
  }

  public AwsRetry withSleeper(Sleeper other) {
    return new AwsRetry(maxAttempts, base, cap, other, jitter);
  }

  /** The sleep before attempt {@code attempt + 1} (attempt counted from 1). */
  Duration backoff(int attempt) {
    long ceiling = base.toMillis() << Math.min(attempt - 1, 20);
    long bound = Math.min(cap.toMillis(), ceiling);
    return Duration.ofMillis((long) (jitter.getAsDouble() * bound));
  }

  /**
   * {@code attempt} until it answers, or fails with an error that is not {@link
   * AwsCallException#retryable()}, or the attempts are spent (the last error is thrown). An
   * interrupted sleep ends the retries with the error that preceded it.
   */
  public <T> T run(Supplier<T> attempt) {
    for (int n = 1; ; n++) {
      try {
        return attempt.get();
      } catch (AwsCallException e) {
        if (!e.retryable() || n >= maxAttempts) {
          throw e;
        }
        try {
          sleeper.sleep(backoff(n));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}

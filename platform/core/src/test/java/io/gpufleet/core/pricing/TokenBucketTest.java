package io.gpufleet.core.pricing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
  final AtomicLong nanos = new AtomicLong();

  TokenBucket bucket(double rate, int burst) {
    // the sleeper advances the fake clock, as real time would pass
    return new TokenBucket(rate, burst, nanos::get, d -> nanos.addAndGet(d.toNanos()));
  }

  @Test
  void shouldLetTheBurstThroughThenPaceAtTheRate() throws Exception {
    var b = bucket(5, 10);
    for (int i = 0; i < 10; i++) {
      assertThat(b.acquire()).isZero();
    }
    long before = nanos.get();
    for (int i = 0; i < 20; i++) {
      b.acquire();
    }
    // 20 more tokens at 5/s take 4 s of (simulated) waiting
    assertThat(Duration.ofNanos(nanos.get() - before))
        .isBetween(Duration.ofMillis(3990), Duration.ofMillis(4010));
  }

  @Test
  void shouldRefillWhileIdleButNotBeyondTheBurst() throws Exception {
    var b = bucket(5, 10);
    for (int i = 0; i < 10; i++) {
      b.acquire();
    }
    nanos.addAndGet(Duration.ofMinutes(1).toNanos());
    for (int i = 0; i < 10; i++) {
      assertThat(b.acquire()).isZero();
    }
    assertThat(b.acquire()).isEqualTo(Duration.ofMillis(200));
  }
}

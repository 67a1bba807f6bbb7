package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.preflight.wiring.PreflightWiring;
import java.util.ArrayList;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link PreflightWiring#once}: the lazily built clients are made once, whoever asks first. */
class OnceTest {
  @Test
  void shouldMakeNothingUntilAskedThenTheSameValueForEveryCaller() throws Exception {
    var made = new AtomicInteger();
    var value = PreflightWiring.once(() -> new Object[] {made.incrementAndGet()});
    assertThat(made).hasValue(0);

    int threads = 8;
    var start = new CyclicBarrier(threads);
    var pool = Executors.newFixedThreadPool(threads);
    try {
      var results = new ArrayList<Future<Object[]>>();
      for (int i = 0; i < threads; i++) {
        Callable<Object[]> ask =
            () -> {
              start.await(10, TimeUnit.SECONDS);
              return value.get();
            };
        results.add(pool.submit(ask));
      }
      Object[] first = results.get(0).get(10, TimeUnit.SECONDS);
      for (var r : results) {
        assertThat(r.get(10, TimeUnit.SECONDS)).isSameAs(first);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(made).hasValue(1);
  }

  @Test
  void shouldTryAgainWhenMakingFailed() {
    var attempts = new AtomicInteger();
    var value =
        PreflightWiring.once(
            () -> {
              if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("AWS_REGION is not set");
              }
              return "client";
            });

    org.assertj.core.api.Assertions.assertThatThrownBy(value::get)
        .hasMessageContaining("AWS_REGION");
    assertThat(value.get()).isEqualTo("client");
    assertThat(attempts).hasValue(2);
  }
}

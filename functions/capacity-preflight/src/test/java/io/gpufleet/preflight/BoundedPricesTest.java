package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.PriceSource;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BoundedPricesTest {
  static HourlyPrice price(String region, String type) {
    return new HourlyPrice(
        region, type, new BigDecimal("55.04"), "USD", PriceSource.API, Optional.empty());
  }

  @Test
  void shouldAnswerWithThePriceWhenItArrivesInTime() {
    try (var prices =
        new BoundedPrices((r, t) -> Optional.of(price(r, t)), Duration.ofSeconds(5))) {
      assertThat(prices.hourly("us-east-1", "p5.48xlarge"))
          .get()
          .extracting(HourlyPrice::perHour)
          .isEqualTo(new BigDecimal("55.04"));
    }
  }

  @Test
  void shouldReportUnknownWhenThePriceIsLateAndLetTheLookupFinishInTheBackground()
      throws InterruptedException {
    var release = new CountDownLatch(1);
    var finished = new CountDownLatch(1);
    try (var prices =
        new BoundedPrices(
            (r, t) -> {
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              finished.countDown();
              return Optional.of(price(r, t));
            },
            Duration.ofMillis(50))) {
      assertThat(prices.hourly("us-east-1", "p5.48xlarge")).isEmpty();
      release.countDown();
      assertThat(finished.await(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void shouldReportUnknownWhenTheLookupFails() {
    try (var prices =
        new BoundedPrices(
            (r, t) -> {
              throw new IllegalStateException("throttled");
            },
            Duration.ofSeconds(5))) {
      assertThat(prices.hourly("us-east-1", "p5.48xlarge")).isEmpty();
    }
  }
}

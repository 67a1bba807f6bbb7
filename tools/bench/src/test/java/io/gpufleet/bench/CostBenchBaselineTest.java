package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.cost.CostReportService;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import org.junit.jupiter.api.Test;

/**
 * {@code bench cost} runs its baseline over the whole fleet and counts Pricing calls at the stub
 * (structure and counts; the stub's clock is virtual here, nothing is timed).
 */
class CostBenchBaselineTest {
  static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");

  @Test
  void shouldJoinAndPriceEveryPodOfTheFleetInTheBaseline() {
    var fleet = CostBench.fleet(200, 3_000, NOW, 3);

    var b = CostBench.baseline(fleet);

    assertThat(b.pods()).isEqualTo(3_000);
    assertThat(b.joined()).isEqualTo(3_000);
    assertThat(b.pricingCalls()).as("counted by the stub, one per pod").isEqualTo(3_000);
  }

  @Test
  void shouldChargeTheBaselinesCallsTheClientsRateOnTheStubsClock() {
    var fleet = CostBench.fleet(50, 1_000, NOW, 4);

    var b = CostBench.baseline(fleet);

    // 5 calls/s after a burst of 10, each call a 50 ms round trip: virtual time, not measured
    long waitMs = b.pricingWaitNanos() / 1_000_000;
    assertThat(waitMs).isBetween((1_000L - 10) * 200, 1_000L * 250);
    assertThat(b.totalMs()).isGreaterThanOrEqualTo(waitMs);
  }

  @Test
  void shouldAskThePricingStubAtMostOncePerInstanceTypeInTheMeasuredReport() {
    var fleet = CostBench.fleet(300, 2_000, NOW, 5);
    var stub = CostBench.PricingStub.virtualTime();
    var service =
        CostBench.service(
            fleet, Clock.fixed(NOW, ZoneOffset.UTC), stub, new CostBench.SizeOnlyStore());

    service.run(new CostReportService.Request("24h", null, false), CostReportService.Progress.NONE);

    var types = new HashSet<String>();
    fleet.instances().forEach(i -> types.add(i.instanceType()));
    assertThat(stub.calls()).isPositive().isLessThanOrEqualTo(types.size());
  }
}

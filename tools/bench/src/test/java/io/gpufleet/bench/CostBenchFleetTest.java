package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The generated fleet of {@code bench cost} carries shared GPUs and reconciles (no timing). */
class CostBenchFleetTest {
  @Test
  void benchFleetHasMigTimeSlicedAndDraNodesAndItsReportReconciles() {
    Instant now = Instant.parse("2026-11-30T02:00:00Z");
    var fleet = CostBench.fleet(1000, 10_000, now, 7);

    var r = CostBench.reportOnce(fleet, Clock.fixed(now, ZoneOffset.UTC));

    assertThat(r.gpuSharing())
        .extracting(g -> g.sharing())
        .contains("mig-mixed", "time-slicing", "dra", "none");
    assertThat(r.kpis().gpuUtilisationPercent()).isNotNull();
    assertThat(r.kpis().costPerMillionOutputTokens()).isNotNull();
    assertThat(r.kpis().commitmentSavings().signum()).isPositive();
    assertThat(r.reconciliation().balanced()).as("%s", r.reconciliation()).isTrue();
    assertThat(r.reconciliation().allocated().add(r.reconciliation().idle()))
        .isEqualByComparingTo(r.kpis().totalCost());
  }
}

package io.gpufleet.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.cost.model.SpotPricePoint;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpotPricesTest {
  static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  static SpotPricePoint p(String zone, int hour, String usd) {
    return new SpotPricePoint(
        zone, "p5.48xlarge", T0.plusSeconds(hour * 3600L), new BigDecimal(usd));
  }

  @Test
  void shouldWeightEachPriceByHowLongItHeld() {
    // the change before the window (hour -5) holds until hour 2, then 20 until hour 6, then 30
    var spot =
        new SpotPrices(
            List.of(p("us-east-1a", -5, "10"), p("us-east-1a", 2, "20"), p("us-east-1a", 6, "30")));

    var cost = spot.cost("us-east-1a", "p5.48xlarge", T0, T0.plusSeconds(8 * 3600));

    // 2 h x 10 + 4 h x 20 + 2 h x 30
    assertThat(cost).hasValueSatisfying(c -> assertThat(c).isEqualByComparingTo("160"));
    assertThat(spot.averagePerHour("us-east-1a", "p5.48xlarge", T0, T0.plusSeconds(8 * 3600)))
        .hasValueSatisfying(a -> assertThat(a).isEqualByComparingTo("20"));
  }

  @Test
  void shouldKeepZonesApart() {
    var spot = new SpotPrices(List.of(p("us-east-1a", -1, "10"), p("us-east-1b", -1, "40")));

    assertThat(spot.cost("us-east-1b", "p5.48xlarge", T0, T0.plusSeconds(1800)))
        .hasValueSatisfying(c -> assertThat(c).isEqualByComparingTo("20"));
    assertThat(spot.cost("us-east-1c", "p5.48xlarge", T0, T0.plusSeconds(1800))).isEmpty();
  }

  @Test
  void shouldCountPartialSegmentsAndCollapseDuplicateProductDescriptions() {
    // both Linux/UNIX and Linux/UNIX (Amazon VPC) report the change at hour 1
    var spot =
        new SpotPrices(
            List.of(p("us-east-1a", 0, "12"), p("us-east-1a", 1, "24"), p("us-east-1a", 1, "24")));

    var cost = spot.cost("us-east-1a", "p5.48xlarge", T0.plusSeconds(1800), T0.plusSeconds(5400));

    // 30 min at 12 + 30 min at 24
    assertThat(cost).hasValueSatisfying(c -> assertThat(c).isEqualByComparingTo("18"));
  }
}

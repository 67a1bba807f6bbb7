package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BurstPercentilesTest {
  @Test
  void shouldTakeTheNearestRank() {
    // Given 50 interruptions cordoned at 10, 20, ..., 500 ms (in any order)
    var values = new ArrayList<Long>();
    for (long i = 50; i >= 1; i--) {
      values.add(i * 10);
    }
    // Then P50 is the 25th value and P99 the 50th (ceil(0.99 x 50) = 50)
    assertThat(BurstPercentiles.percentile(values, 50)).isEqualTo(250L);
    assertThat(BurstPercentiles.percentile(values, 99)).isEqualTo(500L);
    assertThat(BurstPercentiles.of(values)).containsEntry("n", 50).containsEntry("max", 500L);
  }

  @Test
  void shouldSayNothingOfNoValuesAndRefuseAPercentileOutOfRange() {
    assertThat(BurstPercentiles.percentile(List.of(), 99)).isNull();
    assertThatThrownBy(() -> BurstPercentiles.percentile(List.of(1L), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldPassTheP99CordonTargetOnlyWithinOneSecond() {
    var within = new java.util.LinkedHashMap<String, Object>();
    within.put("cordonedFromBurstMs", BurstPercentiles.of(List.of(100L, 1000L)));
    assertThat(DrainBurstBench.p99CordonPasses(within)).isTrue();
    var over = new java.util.LinkedHashMap<String, Object>();
    over.put("cordonedFromBurstMs", BurstPercentiles.of(List.of(100L, 1001L)));
    assertThat(DrainBurstBench.p99CordonPasses(over)).isFalse();
    assertThat(DrainBurstBench.p99CordonPasses(new java.util.LinkedHashMap<>())).isFalse();
  }
}

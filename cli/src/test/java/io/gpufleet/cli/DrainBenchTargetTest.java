package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.bench.DrainBench;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code bench drain} is judged against the physical limit, not against its limiter baseline. */
class DrainBenchTargetTest {
  static Map<String, Object> figures(String status, int evicted, long issuedMs, double speedup) {
    var f = new HashMap<String, Object>();
    f.put("status", status);
    f.put("evicted", evicted);
    f.put("evictionsIssuedMs", issuedMs);
    f.put("baselineEvictionsIssuedMs", 20_400L);
    f.put("speedup", speedup);
    return f;
  }

  @Test
  void shouldAllowSixRoundTripsPlusThirtyMillisecondsAtTheConfiguredLatency() {
    assertThat(DrainBench.physicalLimitMs(20)).isEqualTo(150);
    assertThat(DrainBench.physicalLimitMs(0)).isEqualTo(30);
    assertThat(DrainBench.physicalLimitMs(100)).isEqualTo(630);
    assertThat(DrainBench.PHYSICAL_LIMIT_FORMULA).isEqualTo("6 round trips x latencyMs + 30 ms");
  }

  @Test
  void shouldFailADrainThatBeatsTheBaselineManyTimesButMissesThePhysicalLimit() {
    // 36x the limiter baseline, as measured before the target changed: not enough any more
    assertThat(DrainBench.drainPasses(figures("DRAINED", 110, 570, 36.5), 110, 150)).isFalse();
  }

  @Test
  void shouldPassADrainAtThePhysicalLimitWhateverTheBaselineSays() {
    assertThat(DrainBench.drainPasses(figures("DRAINED", 110, 150, 1.0), 110, 150)).isTrue();
  }

  @Test
  void shouldFailADrainThatLeftPodsBehindOrDidNotDrain() {
    assertThat(DrainBench.drainPasses(figures("DRAINED", 109, 100, 200), 110, 150)).isFalse();
    assertThat(DrainBench.drainPasses(figures("PARTIAL", 110, 100, 200), 110, 150)).isFalse();
    var noEvictions = figures("DRAINED", 110, 100, 200);
    noEvictions.put("evictionsIssuedMs", null);
    assertThat(DrainBench.drainPasses(noEvictions, 110, 150)).isFalse();
  }
}

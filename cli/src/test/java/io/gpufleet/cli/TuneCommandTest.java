package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.bench.DrainBench;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How bench tune names a size from its sweep. */
class TuneCommandTest {
  static Map<String, Object> row(int mb, String usd, boolean all, boolean warm) {
    return Map.of(
        "memoryMb", mb,
        "usdPerInvocation", new BigDecimal(usd),
        "targetsMet", all,
        "warmTargetsMet", warm);
  }

  @Test
  void shouldNameTheCheapestSizeWhereEveryTargetHolds() {
    var rows =
        List.of(
            row(512, "0.0000109", false, false),
            row(1024, "0.0000101", false, true),
            row(1769, "0.0000146", true, true),
            row(3008, "0.0000211", true, true));

    assertThat(TuneCommand.cheapest(rows, "targetsMet")).containsEntry("memoryMb", 1769);
    assertThat(TuneCommand.cheapest(rows, "warmTargetsMet")).containsEntry("memoryMb", 1024);
  }

  @Test
  void shouldNameNoSizeWhenNoneMeetsTheTargets() {
    var rows = List.of(row(512, "0.0000109", false, false), row(1024, "0.0000101", false, true));

    assertThat(TuneCommand.cheapest(rows, "targetsMet")).isNull();
  }

  @Test
  void shouldSweepTheSizesTheIssueNamesByDefault() {
    assertThat(TuneCommand.sizes(null)).containsExactly(512, 1024, 1536, 1769, 2048, 3008);
    assertThat(TuneCommand.sizes("1024, 2048")).containsExactly(1024, 2048);
  }

  @Test
  void shouldJudgeTheDrainsSizeOnTheDeadlineBarNotThePhysicalLimit() {
    var plan = TuneCommand.plan("interruption-drain");
    assertThat(plan.passField()).isEqualTo("deadlinePass");
    assertThat(plan.targetLimitField()).isEqualTo("deadlineTargetEvictionsIssuedMs");
    assertThat(DrainBench.DEADLINE_TARGET_MS).isEqualTo(1000);
    // 270 ms of evictions at 20 ms per request: over the physical limit, within the deadline bar
    Map<String, Object> figures =
        Map.of("status", "DRAINED", "evicted", 110, "evictionsIssuedMs", 270);
    assertThat(DrainBench.drainPasses(figures, 110, DrainBench.physicalLimitMs(20))).isFalse();
    assertThat(DrainBench.drainPasses(figures, 110, DrainBench.DEADLINE_TARGET_MS)).isTrue();
    assertThat(TuneCommand.plan("cost-report").passField()).isEqualTo("pass");
  }
}

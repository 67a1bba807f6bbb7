package io.gpufleet.drain.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

class DrainWarmupTest {
  @Test
  void shouldRunEveryInitStepWithoutError() {
    // InitWarmup ignores a failing step, so a broken sample would go unnoticed there: run each here
    var steps = DrainWarmup.steps();
    assertThat(steps).hasSize(4);
    for (Runnable step : steps) {
      assertThatCode(step::run).doesNotThrowAnyException();
    }
  }
}

package io.gpufleet.schedule.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.gpufleet.schedule.SchedulePriming;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ScheduleWarmupTest {
  @ParameterizedTest
  @ValueSource(strings = {"s3://bucket/policy.yaml", "ssm:/gpufleet/schedule-policy", "file:/p"})
  void shouldRunEveryInitStepWithoutError(String policySource) {
    // InitWarmup ignores a failing step, so a broken sample would go unnoticed there: run each here
    var steps = ScheduleHandler.warmup(policySource);
    assertThat(steps).hasSize(SchedulePriming.warmup(policySource).size() + 2);
    for (Runnable step : steps) {
      assertThatCode(step::run).doesNotThrowAnyException();
    }
  }

  @Test
  void shouldPrimeWithoutAPolicySource() {
    assertThatCode(() -> SchedulePriming.warmup(null).forEach(Runnable::run))
        .doesNotThrowAnyException();
  }
}

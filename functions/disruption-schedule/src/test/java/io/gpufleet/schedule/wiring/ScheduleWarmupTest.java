package io.gpufleet.schedule.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.gpufleet.schedule.SchedulePriming;
import org.junit.jupiter.api.Test;

class ScheduleWarmupTest {
  @Test
  void shouldPrimeTheS3SigningPathOnlyForAnS3Policy() {
    int ssm = SchedulePriming.warmup("ssm:/gpufleet/schedule-policy").size();
    assertThat(SchedulePriming.warmup("s3://bucket/policy.yaml")).hasSize(ssm + 1);
    assertThat(SchedulePriming.warmup("file:/tmp/policy.yaml")).hasSize(ssm);
    assertThat(SchedulePriming.warmup(null)).hasSize(ssm);
  }

  @Test
  void shouldRunEveryInitStepWithoutError() {
    // InitWarmup ignores a failing step, so a broken sample would go unnoticed there: run each here
    var steps = ScheduleHandler.warmup("s3://bucket/policy.yaml");
    assertThat(steps).hasSize(SchedulePriming.warmup("s3://bucket/policy.yaml").size() + 1);
    for (Runnable step : steps) {
      assertThatCode(step::run).doesNotThrowAnyException();
    }
  }
}

package io.gpufleet.schedule.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.gpufleet.schedule.SchedulePriming;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScheduleWarmupTest {
  @ParameterizedTest
  @CsvSource({
    "s3://bucket/policy.yaml,false",
    "ssm:/gpufleet/schedule-policy,false",
    "ssm:/gpufleet/schedule-policy,true",
    "file:/p,true"
  })
  void shouldRunEveryInitStepWithoutError(String policySource, boolean records) {
    // InitWarmup ignores a failing step, so a broken sample would go unnoticed there: run each here
    var steps = ScheduleHandler.warmup(policySource, records);
    assertThat(steps).hasSize(SchedulePriming.warmup(policySource, records).size() + 2);
    for (Runnable step : steps) {
      assertThatCode(step::run).doesNotThrowAnyException();
    }
  }

  @Test
  void shouldPrimeTheS3SigningPathWhenRunsWriteHoldRecords() {
    // an SSM policy alone needs only the plain signing path; hold records add S3's
    assertThat(SchedulePriming.warmup("ssm:/p", true))
        .hasSize(SchedulePriming.warmup("ssm:/p", false).size() + 1);
    assertThat(SchedulePriming.warmup("s3://b/k", true))
        .hasSameSizeAs(SchedulePriming.warmup("s3://b/k", false));
  }

  @Test
  void shouldPrimeWithoutAPolicySource() {
    assertThatCode(() -> SchedulePriming.warmup(null, false).forEach(Runnable::run))
        .doesNotThrowAnyException();
  }
}

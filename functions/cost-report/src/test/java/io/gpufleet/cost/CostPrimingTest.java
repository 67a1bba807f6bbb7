package io.gpufleet.cost;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

class CostPrimingTest {
  @Test
  void shouldPrimeTheReportPathsWithoutFailing() {
    // beforeCheckpoint runs this while a version is published: a throw here fails the SnapStart
    // INIT (runtime exit 64) and the deployment. Its instance never joined the cluster, so the
    // report must cope with a node that has EC2 facts only.
    assertThatCode(CostPriming::prime).doesNotThrowAnyException();
  }

  @Test
  void shouldRunEveryReportWarmupStepWithoutFailing() {
    // InitWarmup ignores a failing step (the main path meets it again): a step broken for good
    // would only show as a slower cold start, so each must run cleanly here
    for (Runnable step : CostPriming.warmup()) {
      assertThatCode(step::run).doesNotThrowAnyException();
    }
  }
}

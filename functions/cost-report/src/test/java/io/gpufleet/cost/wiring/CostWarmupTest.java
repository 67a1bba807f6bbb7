package io.gpufleet.cost.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.gpufleet.cost.CostPriming;
import org.junit.jupiter.api.Test;

class CostWarmupTest {
  @Test
  void shouldRunTheWiringsStepsFirstAndEveryStepWithoutFailing() {
    var steps = CostHandler.warmup();

    // InitWarmup ignores a failing step (the main path meets it again): a step broken for good
    // would only show as a slower cold start, so each must run cleanly here
    assertThat(steps).hasSize(2 + CostPriming.warmup().size());
    for (Runnable step : steps) {
      assertThatCode(step::run).doesNotThrowAnyException();
    }
  }
}

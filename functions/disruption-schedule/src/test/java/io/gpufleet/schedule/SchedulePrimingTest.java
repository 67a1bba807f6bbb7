package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

class SchedulePrimingTest {
  @Test
  void shouldRunEveryReadOnlyPathWithoutNetworkOrError() {
    // the samples must stay valid as the code changes: priming that throws would fail init
    assertThatCode(SchedulePriming::prime).doesNotThrowAnyException();
  }
}

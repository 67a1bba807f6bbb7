package io.gpufleet.core.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ref.Reference;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SnapStartPrimingTest {
  @Test
  void shouldRunThePrimingOnlyBeforeTheCheckpoint() throws Exception {
    // Given
    var primed = new AtomicInteger();
    var priming =
        SnapStartPriming.register(
            SnapStartPrimingTest.class, "read-only paths", primed::incrementAndGet);

    // When registered, nothing runs yet; then the checkpoint comes
    int beforeCheckpoint = primed.get();
    priming.beforeCheckpoint(null);

    // Then
    assertThat(beforeCheckpoint).isZero();
    assertThat(primed).hasValue(1);
  }

  @Test
  void shouldRenewWhatSnapStartHoldsAfterRestoreAndNotPrimeAgain() throws Exception {
    // Given a renewable held as a client would hold it
    var primed = new AtomicInteger();
    var renewed = new AtomicInteger();
    SnapStart.Renewable renewable = renewed::incrementAndGet;
    SnapStart.register(renewable);
    var priming =
        SnapStartPriming.register(
            SnapStartPrimingTest.class, "read-only paths", primed::incrementAndGet);

    // When
    priming.afterRestore(null);

    // Then
    assertThat(renewed).hasValue(1);
    assertThat(primed).hasValue(0);
    Reference.reachabilityFence(renewable);
  }

  @Test
  void shouldRejectAMissingPrimingStep() {
    assertThatThrownBy(() -> SnapStartPriming.register(SnapStartPrimingTest.class, "x", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("prime");
  }
}

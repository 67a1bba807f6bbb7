package io.gpufleet.core.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InitWarmupTest {

  @Test
  void shouldBuildBesideWhileTheCallerGoesOn() {
    var callerWent = new CountDownLatch(1);
    var builtOn = new String[1];
    var value =
        InitWarmup.beside(
            "test",
            () -> {
              try {
                callerWent.await(); // finishes only after the caller has gone on without it
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              builtOn[0] = Thread.currentThread().getName();
              return "client";
            });
    callerWent.countDown();

    assertThat(value.get()).isEqualTo("client");
    assertThat(builtOn[0]).isEqualTo("gpufleet-init-test");
  }

  @Test
  void shouldBuildOnceAndRethrowTheBuildsOwnFailureOnEveryAsk() {
    var builds = new AtomicInteger();
    var value =
        InitWarmup.<String>beside(
            "failing",
            () -> {
              builds.incrementAndGet();
              throw new ConfigException("REPORT_BUCKET is not set");
            });

    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(value::get)
          .isInstanceOf(ConfigException.class)
          .hasMessage("REPORT_BUCKET is not set");
    }
    assertThat(builds).hasValue(1);
  }

  @Test
  void shouldJoinTheWarmUpBeforeReturningTheMainResult() {
    var stepsRun = new AtomicInteger();
    String result =
        InitWarmup.around(
            java.util.List.of(stepsRun::incrementAndGet, stepsRun::incrementAndGet), () -> "wired");

    assertThat(result).isEqualTo("wired");
    assertThat(stepsRun).hasValue(2);
  }

  @Test
  void shouldTakeTheStepsNotStartedYetOnTheCallerOnceItsOwnWorkIsDone() throws Exception {
    var firstStarted = new CountDownLatch(1);
    var secondRan = new CountDownLatch(1);
    var secondOn = new String[1];
    var firstSawSecond = new boolean[1];
    Runnable first =
        () -> {
          firstStarted.countDown();
          try {
            // the warm-up thread is held here until the second step has run elsewhere
            firstSawSecond[0] = secondRan.await(10, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    Runnable second =
        () -> {
          secondOn[0] = Thread.currentThread().getName();
          secondRan.countDown();
        };
    String caller = Thread.currentThread().getName();

    // the caller's own work ends once the warm-up thread is inside the first step
    String result =
        InitWarmup.around(
            java.util.List.of(first, second),
            () -> {
              try {
                firstStarted.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return "wired";
            });

    assertThat(result).isEqualTo("wired");
    assertThat(secondOn[0]).isEqualTo(caller);
    assertThat(firstSawSecond[0]).isTrue();
  }
}

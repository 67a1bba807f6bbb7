package io.gpufleet.core.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class VirtualTimeTest {
  static final Instant START = Instant.parse("2026-12-01T06:00:00Z");

  @Test
  void shouldMoveOnlyWhenToldOrWhenSleeping() throws InterruptedException {
    var time = new VirtualTime(START);

    time.advance(Duration.ofSeconds(5));
    time.sleeper().sleep(Duration.ofSeconds(10));

    assertThat(time.clock().instant()).isEqualTo(START.plusSeconds(15));
    assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(10));
    assertThat(time.totalSlept()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void shouldLetTheCallerContinueFromTheLatestOfTheThreadsItStarted() throws Exception {
    var time = new VirtualTime(START);
    // a thread's timeline starts when it is created, so both are created before either runs
    Thread a = Thread.ofPlatform().unstarted(() -> sleep(time, Duration.ofSeconds(30)));
    Thread b = Thread.ofPlatform().unstarted(() -> sleep(time, Duration.ofSeconds(90)));
    a.start();
    b.start();
    a.join();
    b.join();

    // both workers saw the full window; the caller continues after the longer one
    assertThat(time.now()).isEqualTo(START.plusSeconds(90));
  }

  @Test
  void shouldJumpBackWhenSetEvenAfterItsThreadsRanAhead() throws Exception {
    var time = new VirtualTime(START);
    Thread t = Thread.ofPlatform().start(() -> sleep(time, Duration.ofHours(1)));
    t.join();

    time.set(START.minusSeconds(60));

    assertThat(time.clock().instant()).isEqualTo(START.minusSeconds(60));
  }

  @Test
  void shouldRefuseANegativeSleep() {
    var time = new VirtualTime(START);

    assertThatThrownBy(() -> time.sleeper().sleep(Duration.ofSeconds(-1)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("negative");
  }

  private static void sleep(VirtualTime time, Duration d) {
    try {
      time.sleeper().sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

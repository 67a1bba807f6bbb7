package io.gpufleet.core.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LazyTest {

  @Test
  void shouldBuildOnceWhenManyThreadsAskAtTheSameMoment() throws Exception {
    var builds = new AtomicInteger();
    var inBuild = new CountDownLatch(1);
    var release = new CountDownLatch(1);
    Lazy<Object> lazy =
        Lazy.of(
            () -> {
              builds.incrementAndGet();
              inBuild.countDown();
              try {
                release.await(); // hold the build open while the other threads arrive
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return new Object();
            });
    try (var pool = Executors.newFixedThreadPool(8)) {
      var answers = new ArrayList<Future<Object>>();
      answers.add(pool.submit(lazy::get));
      inBuild.await();
      for (int i = 0; i < 7; i++) {
        answers.add(pool.submit(lazy::get));
      }
      release.countDown();
      Object first = answers.get(0).get();
      for (var a : answers) {
        assertThat(a.get()).isSameAs(first);
      }
    }
    assertThat(builds).hasValue(1);
  }

  @Test
  void shouldTryAgainAfterABuildThatFailed() {
    var calls = new AtomicInteger();
    Lazy<String> lazy =
        Lazy.of(
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("no credentials yet");
              }
              return "client";
            });
    assertThatThrownBy(lazy::get).hasMessage("no credentials yet");
    assertThat(lazy.get()).isEqualTo("client");
    assertThat(lazy.get()).isEqualTo("client");
    assertThat(calls).hasValue(2);
  }
}

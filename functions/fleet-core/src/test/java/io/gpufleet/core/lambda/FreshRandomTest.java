package io.gpufleet.core.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import org.junit.jupiter.api.Test;

class FreshRandomTest {
  @Test
  void shouldReseedAfterEveryRestore() {
    // Given the generator in use (as a snapshot would carry it)
    long before = FreshRandom.seed();
    var seeds = new HashSet<Long>();
    seeds.add(before);

    // When environments are restored, Then each starts from a seed of its own
    for (int i = 0; i < 5; i++) {
      SnapStart.afterRestore();
      seeds.add(FreshRandom.seed());
    }
    assertThat(seeds).hasSize(6);
  }

  @Test
  void shouldStayWithinTheBound() {
    for (int i = 0; i < 1000; i++) {
      assertThat(FreshRandom.nextLong(7)).isBetween(0L, 6L);
    }
  }
}

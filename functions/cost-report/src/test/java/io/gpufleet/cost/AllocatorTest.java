package io.gpufleet.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AllocatorTest {

  @Test
  void shouldChargeByGpuRequestUnderTheDefaultRule() {
    var cap = new Allocator.Capacity(8 * 10, 192 * 10, 2048 * 10);
    var demands =
        new Allocator.Demand[] {
          new Allocator.Demand(4 * 10, 8 * 10, 64 * 10), // half the GPUs
          new Allocator.Demand(1 * 10, 100 * 10, 1000 * 10), // one GPU, lots of CPU
          new Allocator.Demand(0, 50 * 10, 10 * 10) // no GPU
        };

    var split = Allocator.split(new BigDecimal("983.20"), cap, demands, AllocationRule.GPU);

    assertThat(split.pods()[0]).isEqualByComparingTo("491.60");
    assertThat(split.pods()[1]).isEqualByComparingTo("122.90");
    assertThat(split.pods()[2]).isEqualByComparingTo("0.00");
    assertThat(split.idle()).isEqualByComparingTo("368.70");
  }

  @Test
  void shouldUseCpuAndMemoryOnNodesWithoutGpus() {
    var cap = new Allocator.Capacity(0, 4, 16);
    var demands = new Allocator.Demand[] {new Allocator.Demand(0, 2, 4)};

    var split = Allocator.split(new BigDecimal("10.00"), cap, demands, AllocationRule.GPU);

    // half the CPU (0.5 x 50 %) + a quarter of the memory (0.5 x 25 %)
    assertThat(split.pods()[0]).isEqualByComparingTo("3.75");
    assertThat(split.idle()).isEqualByComparingTo("6.25");
  }

  @Test
  void shouldApplyWeightedRules() {
    var rule = AllocationRule.parse("weighted:gpu=0.9,cpu=0.05,memory=0.05");
    var cap = new Allocator.Capacity(8, 192, 2048);
    var demands = new Allocator.Demand[] {new Allocator.Demand(0, 96, 1024)};

    var split = Allocator.split(new BigDecimal("100"), cap, demands, rule);

    assertThat(split.pods()[0]).isEqualByComparingTo("5.00");
    assertThat(split.idle()).isEqualByComparingTo("95.00");
  }

  /** Generated fleets: allocated + idle equals the node's cost to the cent, always. */
  @ParameterizedTest
  @ValueSource(strings = {"gpu", "cpu-memory", "weighted:gpu=0.7,cpu=0.2,memory=0.1"})
  void allocatedPlusIdleShouldEqualNodeCostToTheCent(String ruleText) {
    var rule = AllocationRule.parse(ruleText);
    var random = new Random(ruleText.hashCode());
    for (int node = 0; node < 2000; node++) {
      int gpus = random.nextInt(3) == 0 ? 0 : 1 << random.nextInt(4);
      double hours = random.nextDouble() * 24;
      var cap = new Allocator.Capacity(gpus * hours, 96 * hours, 768 * hours);
      int n = random.nextInt(40);
      var demands = new Allocator.Demand[n];
      for (int i = 0; i < n; i++) {
        double h = random.nextDouble() * hours;
        // some nodes are over-requested (overlapping pod records): must still add up
        demands[i] =
            new Allocator.Demand(
                random.nextInt(gpus + 1) * h,
                random.nextDouble() * 16 * h,
                random.nextDouble() * 128 * h);
      }
      var cost =
          BigDecimal.valueOf(random.nextDouble() * 3000)
              .setScale(random.nextInt(8), java.math.RoundingMode.HALF_EVEN);

      var split = Allocator.split(cost, cap, demands, rule);

      BigDecimal sum = split.idle();
      for (var c : split.pods()) {
        assertThat(c.signum()).isGreaterThanOrEqualTo(0);
        assertThat(c.scale()).isEqualTo(2);
        sum = sum.add(c);
      }
      assertThat(split.idle().signum()).isGreaterThanOrEqualTo(0);
      assertThat(sum).isEqualByComparingTo(cost.setScale(2, java.math.RoundingMode.HALF_EVEN));
    }
  }

  @Test
  void shouldRejectWeightsThatDoNotAddUpToOne() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> AllocationRule.parse("weighted:gpu=0.9,cpu=0.2"))
        .hasMessageContaining("add up to 1.1");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> AllocationRule.parse("fair"))
        .hasMessageContaining("COST_ALLOCATION_RULE='fair'");
  }
}

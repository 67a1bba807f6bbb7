package io.gpufleet.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MigProfilesTest {

  @ParameterizedTest(name = "{1} on {0} blocks {2} of a GPU")
  @CsvSource({
    "p4d.24xlarge, nvidia.com/mig-1g.5gb, 0.142857",
    "p4d.24xlarge, nvidia.com/mig-1g.10gb, 0.25",
    "p4d.24xlarge, nvidia.com/mig-3g.20gb, 0.5",
    "p4d.24xlarge, nvidia.com/mig-7g.40gb, 1.0",
    "p5.48xlarge, nvidia.com/mig-1g.10gb, 0.142857",
    "p5.48xlarge, nvidia.com/mig-2g.20gb, 0.285714",
    "p5.48xlarge, nvidia.com/mig-3g.40gb, 0.5",
    "p5.48xlarge, nvidia.com/mig-4g.40gb, 0.571429",
    "p5.48xlarge, nvidia.com/mig-1g.20gb, 0.25",
    "p5.48xlarge, nvidia.com/mig-7g.80gb, 1.0",
    "p4de.24xlarge, mig-1g.20gb.shared, 0.25",
    "p5en.48xlarge, nvidia.com/mig-3g.71gb, 0.5",
    "p6-b200.48xlarge, nvidia.com/mig-1g.23gb, 0.142857",
    "p4d.24xlarge, A100-SXM4-40GB-MIG-1g.5gb-SHARED, 0.142857"
  })
  void shouldPriceEachProfileAsTheLargerOfItsComputeAndMemoryShare(
      String type, String resource, double fraction) {
    assertThat(MigProfiles.fraction(type, resource).getAsDouble())
        .isCloseTo(fraction, within(1e-5));
  }

  @Test
  void shouldFillOneGpuWithTheSingleProfileLayoutsThatFitOnIt() {
    // mig-parted all-1g.10gb (7), all-1g.20gb (4), all-3g.40gb (2) on an H100
    assertThat(7 * MigProfiles.fraction("p5.48xlarge", "1g.10gb").getAsDouble())
        .isCloseTo(1.0, within(1e-9));
    assertThat(4 * MigProfiles.fraction("p5.48xlarge", "1g.20gb").getAsDouble())
        .isCloseTo(1.0, within(1e-9));
    assertThat(2 * MigProfiles.fraction("p5.48xlarge", "3g.40gb").getAsDouble())
        .isCloseTo(1.0, within(1e-9));
    // the mixed all-balanced layout (2x 1g.10gb + 2g.20gb + 3g.40gb) blocks more than one GPU's
    // worth by this rule; GpuAccounting scales a node's slices back to its physical GPUs
    double balanced =
        2 * MigProfiles.fraction("p5.48xlarge", "1g.10gb").getAsDouble()
            + MigProfiles.fraction("p5.48xlarge", "2g.20gb").getAsDouble()
            + MigProfiles.fraction("p5.48xlarge", "3g.40gb").getAsDouble();
    assertThat(balanced).isCloseTo(4 / 7.0 + 0.5, within(1e-9));
  }

  @Test
  void shouldNotGuessAProfileTheGpuDoesNotOffer() {
    assertThat(MigProfiles.fraction("p5.48xlarge", "1g.5gb")).isEmpty();
    assertThat(MigProfiles.fraction("g6e.12xlarge", "1g.10gb")).isEmpty();
    assertThat(MigProfiles.fraction("p5.48xlarge", "nvidia.com/gpu")).isEmpty();
    assertThat(MigProfiles.profiles("p5.48xlarge")).contains("3g.40gb", "7g.80gb");
  }
}

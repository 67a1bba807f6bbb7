package io.gpufleet.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.sim.aws.SimCapacityAccount;
import org.junit.jupiter.api.Test;

/**
 * The demo fleet and the simulated account pick their instance types as scenario choices, but the
 * hardware facts behind them come from the generated catalog: the two must not drift apart.
 */
class DemoFleetCatalogTest {

  @Test
  void shouldGiveEveryDemoNodeTheGpuCountTheCatalogGivesItsType() {
    assertThat(DemoFleet.NODES)
        .allSatisfy(
            n ->
                assertThat(n.gpus())
                    .as(n.instanceType())
                    .isEqualTo(
                        InstanceCatalog.find(n.instanceType()).orElseThrow().accelerators()));
  }

  @Test
  void shouldUseOnlyCatalogTypesInTheSimulatedAccount() {
    assertThat(SimCapacityAccount.DEMO_TYPES)
        .allSatisfy(t -> assertThat(InstanceCatalog.find(t)).as(t).isPresent());
  }

  @Test
  void shouldHaveAStaticPriceForEveryDemoNodeTypeTheSimulatedPricingApiAnswersFor() {
    assertThat(DemoFleet.NODES)
        .allSatisfy(
            n -> assertThat(StaticPrices.price(n.instanceType())).as(n.instanceType()).isPresent());
  }
}

package io.gpufleet.cost;

import static io.gpufleet.cost.Fixtures.gpuNode;
import static io.gpufleet.cost.Fixtures.instance;
import static io.gpufleet.cost.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.render.ReportJson;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReportBuilderTest {
  static final Instant NOW = Instant.parse("2026-11-11T00:00:00Z");

  /** $10/h for everything. */
  static final OnDemandPrices TEN =
      (region, type) ->
          Optional.of(
              new HourlyPrice(
                  region, type, BigDecimal.TEN, "USD", PriceSource.API, Optional.empty()));

  CostReport build(String spec, ReportWindow w, AllocationRule rule) {
    var inv =
        InventoryMerger.merge(
            "c1",
            "us-east-1",
            NOW,
            List.of(
                gpuNode(
                    "a", "i-0a", "g6e.12xlarge", 4, "on-demand", NOW.minus(Duration.ofDays(30))),
                gpuNode("b", "i-0b", "m6i.xlarge", 0, "on-demand", NOW.minus(Duration.ofDays(30)))),
            List.of(
                pod("ml", "train", "a", 3, NOW.minus(Duration.ofDays(30))),
                pod("web", "api", "b", 0, NOW.minus(Duration.ofDays(30)))),
            List.of(
                instance(
                    "i-0a", "g6e.12xlarge", Lifecycle.ON_DEMAND, NOW.minus(Duration.ofDays(30))),
                instance(
                    "i-0b", "m6i.xlarge", Lifecycle.ON_DEMAND, NOW.minus(Duration.ofDays(30)))),
            InventorySnapshot.empty("c1"),
            Duration.ofDays(40));
    return ReportBuilder.build(
        inv,
        new ReportBuilder.Inputs(
            "c1", "us-east-1", w, NOW, rule, "team", TEN, new SpotPrices(List.of()), List.of()));
  }

  @Test
  void shouldComputeWholeNodeGpuKpisAndProjectMonthToDate() {
    // ten days of November: 2 nodes x 240 h x $10
    var w = new ReportWindow("mtd", Instant.parse("2026-11-01T00:00:00Z"), NOW);

    var k = build("mtd", w, AllocationRule.GPU).kpis();

    assertThat(k.totalCost()).isEqualByComparingTo("4800.00");
    assertThat(k.gpuCapacityHours()).isEqualTo(960.0);
    assertThat(k.gpuRequestedHours()).isEqualTo(720.0);
    assertThat(k.idleGpuPercent()).isEqualTo(25.0);
    assertThat(k.idleGpuCost()).isEqualByComparingTo("600.00"); // a quarter of the GPU node
    assertThat(k.costPerGpuHour()).isEqualByComparingTo("2.5"); // GPU node $2400 / 960 GPU-h
    assertThat(k.runRatePerHour()).isEqualByComparingTo("20.00");
    // 4800 so far + 20 days x 24 h x $20
    assertThat(k.projectedMonthTotal()).isEqualByComparingTo("14400.00");
  }

  @Test
  void shouldStateTheRuleAndLetAWeightedRuleChargeCpuPods() {
    var w = new ReportWindow("24h", NOW.minus(Duration.ofHours(24)), NOW);

    var gpu = build("24h", w, AllocationRule.GPU);
    var weighted = build("24h", w, AllocationRule.parse("weighted:gpu=0.5,cpu=0.5,memory=0"));

    assertThat(gpu.header().allocationRule()).isEqualTo("gpu");
    assertThat(weighted.header().allocationRuleDescription())
        .contains("50 % by GPU", "50 % by CPU");
    var namespace = weighted.rollups().get("namespace");
    assertThat(namespace).extracting(CostReport.Rollup::key).contains("ml", "web", CostReport.IDLE);
    // the same total, whatever the rule
    assertThat(sum(weighted.rollups().get("namespace")))
        .isEqualByComparingTo(weighted.kpis().totalCost());
    assertThat(sum(gpu.rollups().get("team"))).isEqualByComparingTo(gpu.kpis().totalCost());
    assertThat(gpu.kpis().costPerGpuHour()).isEqualByComparingTo(weighted.kpis().costPerGpuHour());
  }

  @Test
  void theCsvHasTheFocusColumnsInOrder() {
    var w = new ReportWindow("24h", NOW.minus(Duration.ofHours(24)), NOW);
    var csv =
        new String(ReportJson.csv(build("24h", w, AllocationRule.GPU)), StandardCharsets.UTF_8);

    assertThat(csv.lines().findFirst().orElseThrow())
        .startsWith(
            "ChargePeriodStart,ChargePeriodEnd,BillingCurrency,ListCost,EffectiveCost,PricingCategory,"
                + "ResourceId,ResourceName,RegionId,AvailabilityZone,x_NodePool,x_InstanceType,")
        .endsWith("x_GpuHours,x_GpuRequestedHours,x_NodeHours,x_PriceSource,x_AllocationRule");
    // two pods and two idle rows
    assertThat(csv.lines().count()).isEqualTo(5);
    assertThat(csv)
        .contains(
            ",Standard,i-0a,a,us-east-1,us-east-1a,gpu-pool,g6e.12xlarge,on-demand,ml,team-ml,train,");
  }

  static BigDecimal sum(List<CostReport.Rollup> rollups) {
    return rollups.stream()
        .map(CostReport.Rollup::effectiveCost)
        .reduce(BigDecimal.ZERO, BigDecimal::add);
  }
}

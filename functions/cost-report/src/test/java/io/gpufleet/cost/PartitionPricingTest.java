package io.gpufleet.cost;

import static io.gpufleet.cost.Fixtures.gpuNode;
import static io.gpufleet.cost.Fixtures.instance;
import static io.gpufleet.cost.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.core.pricing.StaticPrices;
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

/** Reports of clusters outside the commercial partition: China in CNY, GovCloud from the table. */
class PartitionPricingTest {
  static final Instant NOW = Instant.parse("2026-11-11T00:00:00Z");
  static final ReportWindow DAY = new ReportWindow("24h", NOW.minus(Duration.ofHours(24)), NOW);

  static OnDemandPrices flat(String currency, String perHour) {
    return (region, type) ->
        Optional.of(
            new HourlyPrice(
                region,
                type,
                new BigDecimal(perHour),
                currency,
                PriceSource.API,
                Optional.empty()));
  }

  CostReport report(String region, OnDemandPrices prices) {
    var inv =
        InventoryMerger.merge(
            "c1",
            region,
            NOW,
            List.of(
                gpuNode(
                    "a", "i-0a", "g6e.12xlarge", 4, "on-demand", NOW.minus(Duration.ofDays(3)))),
            List.of(pod("ml", "train", "a", 4, NOW.minus(Duration.ofDays(3)))),
            List.of(
                instance(
                    "i-0a", "g6e.12xlarge", Lifecycle.ON_DEMAND, NOW.minus(Duration.ofDays(3)))),
            InventorySnapshot.empty("c1"),
            Duration.ofDays(40));
    return ReportBuilder.build(
        inv,
        new ReportBuilder.Inputs(
            "c1",
            region,
            DAY,
            NOW,
            AllocationRule.GPU,
            "team",
            prices,
            new SpotPrices(List.of()),
            List.of()));
  }

  @Test
  void shouldLabelEveryChinaRowAndTotalInCny() {
    var r = report("cn-northwest-1", flat("CNY", "70.00"));

    assertThat(r.header().currency()).isEqualTo("CNY");
    assertThat(r.kpis().totalCost()).isEqualByComparingTo("1680.00"); // 24 h x 70 CNY
    assertThat(r.rows())
        .isNotEmpty()
        .allSatisfy(row -> assertThat(row.billingCurrency()).isEqualTo("CNY"));
    var csv = new String(ReportJson.csv(r), StandardCharsets.UTF_8);
    assertThat(csv.lines().skip(1)).allSatisfy(line -> assertThat(line).contains(",CNY,"));
  }

  @Test
  void shouldNeverAddAUsdPriceIntoACnyReport() {
    // Given a price source that answers in USD for a China region (a mislabelled cache entry)
    var r = report("cn-north-1", flat("USD", "10.00"));

    // Then the USD figure is not summed as if it were CNY: the node is unpriced and says why
    assertThat(r.header().currency()).isEqualTo("CNY");
    assertThat(r.kpis().totalCost()).isEqualByComparingTo("0");
    assertThat(r.nodes())
        .singleElement()
        .satisfies(
            n -> {
              assertThat(n.notes())
                  .contains("On-Demand price in USD ignored: this report is in CNY");
              assertThat(n.priceSource()).isEqualTo("unknown");
            });
  }

  @Test
  void shouldPriceAGovCloudClusterFromTheStaticTableAndSaySo() {
    var r = report("us-gov-west-1", new StaticPrices());

    assertThat(r.header().currency()).isEqualTo("USD");
    assertThat(r.kpis().totalCost()).isEqualByComparingTo("251.82"); // 24 h x 10.49264
    assertThat(r.nodes())
        .singleElement()
        .satisfies(n -> assertThat(n.priceSource()).isEqualTo("static"));
    assertThat(r.header().staticPricesAsOf())
        .startsWith(StaticPrices.AS_OF.toString())
        .contains("GovCloud has no Pricing API endpoint")
        .contains("not GovCloud's own");
  }
}

package io.gpufleet.cost;

import static io.gpufleet.cost.Fixtures.gpuNode;
import static io.gpufleet.cost.Fixtures.instance;
import static io.gpufleet.cost.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.SpotPricePoint;
import io.gpufleet.cost.model.Utilisation;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How each kind of node is billed: a node in an On-Demand Capacity Reservation is On-Demand usage
 * (billed at the On-Demand rate, discounted by the Savings Plans and Reserved Instances that cover
 * it), with its FOCUS PricingCategory stated per node and per row.
 */
class NodeBillingTest {
  static final Instant NOW = ReportBuilderTest.NOW;
  static final ReportWindow DAY = new ReportWindow("24h", NOW.minus(Duration.ofHours(24)), NOW);

  /** Savings Plans cover 80 % of p5 at half price: 10 × (0.2 + 0.8 × 0.5) = USD 6 an hour. */
  static final Commitments P5_PLAN =
      new Commitments(
          Commitments.COST_EXPLORER,
          Map.of("us-east-1/p5", new Commitments.Coverage(0.8, "p5")),
          0.5,
          Map.of(),
          1,
          Map.of(),
          List.of());

  CostReport report(Commitments commitments) {
    Instant launch = NOW.minus(Duration.ofDays(3));
    var inv =
        InventoryMerger.merge(
            "c1",
            "us-east-1",
            NOW,
            List.of(
                gpuNode("odcr", "i-0r", "p5.48xlarge", 8, "reserved", launch),
                gpuNode("od", "i-0o", "p5.48xlarge", 8, "on-demand", launch),
                gpuNode("plain", "i-0g", "g6e.12xlarge", 4, "reserved", launch),
                gpuNode("spot", "i-0s", "g6e.12xlarge", 4, "spot", launch),
                gpuNode("block", "i-0b", "p5.48xlarge", 8, "on-demand", launch)),
            List.of(pod("ml", "train", "odcr", 8, launch)),
            List.of(
                instance("i-0r", "p5.48xlarge", Lifecycle.RESERVED, launch),
                instance("i-0o", "p5.48xlarge", Lifecycle.ON_DEMAND, launch),
                instance("i-0g", "g6e.12xlarge", Lifecycle.RESERVED, launch),
                instance("i-0s", "g6e.12xlarge", Lifecycle.SPOT, launch),
                instance("i-0b", "p5.48xlarge", Lifecycle.CAPACITY_BLOCK, launch)),
            InventorySnapshot.empty("c1"),
            Duration.ofDays(40));
    var spot =
        new SpotPrices(
            List.of(
                new SpotPricePoint(
                    "us-east-1a", "g6e.12xlarge", NOW.minus(Duration.ofDays(2)), BigDecimal.ONE)));
    return ReportBuilder.build(
        inv,
        new ReportBuilder.Inputs(
            "c1",
            "us-east-1",
            DAY,
            NOW,
            AllocationRule.GPU,
            "team",
            ReportBuilderTest.TEN,
            spot,
            List.of(),
            commitments,
            Utilisation.none("off"),
            Map.of()));
  }

  static CostReport.NodeCost node(CostReport r, String id) {
    return r.nodes().stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
  }

  @Test
  void shouldPriceACapacityReservationNodeAtTheOnDemandRateTheSavingsPlanDiscounts() {
    var r = report(P5_PLAN);

    var odcr = node(r, "i-0r");
    assertThat(odcr.capacityType()).isEqualTo("reserved");
    assertThat(odcr.listCost()).isEqualByComparingTo("240.00");
    assertThat(odcr.effectivePerHour()).isEqualByComparingTo("6.0000");
    assertThat(odcr.effectiveCost()).isEqualByComparingTo("144.00");
    assertThat(odcr.commitmentSavings()).isEqualByComparingTo("96.00");
    assertThat(odcr.priceSource()).isEqualTo("savings-plan (cost-explorer)");
    // FOCUS's Committed needs the commitment's id, which coverage cannot name: Standard
    assertThat(odcr.pricingCategory()).isEqualTo("Standard");
    assertThat(odcr.notes())
        .anyMatch(
            n -> n.startsWith("in an On-Demand Capacity Reservation: billed at the On-Demand"));
    // exactly as the On-Demand node beside it
    var od = node(r, "i-0o");
    assertThat(od.effectiveCost()).isEqualByComparingTo(odcr.effectiveCost());
    assertThat(od.pricingCategory()).isEqualTo("Standard");
    // the FOCUS rows carry the node's category
    assertThat(r.rows())
        .filteredOn(row -> row.resourceId().equals("i-0r"))
        .isNotEmpty()
        .allSatisfy(
            row -> {
              assertThat(row.pricingCategory()).isEqualTo("Standard");
              assertThat(row.priceSource()).isEqualTo("savings-plan (cost-explorer)");
            });
  }

  @Test
  void shouldStateEachNodesPricingCategoryInFocusTerms() {
    var r = report(P5_PLAN);

    // an uncovered reservation node is On-Demand at list: Standard
    assertThat(node(r, "i-0g").pricingCategory()).isEqualTo("Standard");
    assertThat(node(r, "i-0g").effectiveCost()).isEqualByComparingTo("240.00");
    assertThat(node(r, "i-0s").pricingCategory()).isEqualTo("Dynamic");
    assertThat(node(r, "i-0b").pricingCategory()).isEqualTo("Other");
    // only FOCUS's allowed values appear
    assertThat(r.rows())
        .extracting(CostReport.Row::pricingCategory)
        .isSubsetOf("Standard", "Dynamic", "Committed", "Other");
  }

  @Test
  void shouldLeaveAReservationNodeAtListWithoutCommitments() {
    var r = report(Commitments.none("off"));

    var odcr = node(r, "i-0r");
    assertThat(odcr.effectiveCost()).isEqualByComparingTo("240.00");
    assertThat(odcr.commitmentSavings()).isEqualByComparingTo("0.00");
    assertThat(odcr.pricingCategory()).isEqualTo("Standard");
    assertThat(odcr.priceSource()).isEqualTo("api");
  }
}

package io.gpufleet.cost;

import static io.gpufleet.cost.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report on shared GPUs, commitments, measured utilisation and tokens ($10/h list). */
class ReportBuilderGpuTest {
  static final Instant NOW = Instant.parse("2026-11-11T00:00:00Z");
  static final Instant LONG_AGO = NOW.minus(Duration.ofDays(3));
  static final ReportWindow DAY = new ReportWindow("24h", NOW.minus(Duration.ofHours(24)), NOW);

  static ClusterNode node(
      String name, String id, String type, Map<String, Integer> res, Map<String, String> labels) {
    return new ClusterNode(
        name,
        "aws:///us-east-1a/" + id,
        id,
        type,
        "us-east-1a",
        "on-demand",
        "pool-" + name,
        null,
        LONG_AGO,
        0,
        null,
        96_000,
        1024L << 30,
        res,
        labels);
  }

  static ClusterPod pod(String ns, String name, String node, Map<String, Double> gpus, long cpu) {
    return new ClusterPod(
        ns, name, ns + "/" + name, node, null, gpus, cpu, 8L << 30, LONG_AGO, null);
  }

  static CostReport report(Commitments commitments, Utilisation util) {
    var inv =
        InventoryMerger.merge(
            "c1",
            "us-east-1",
            NOW,
            List.of(
                node(
                    "mig",
                    "i-0m",
                    "p5.48xlarge",
                    Map.of("nvidia.com/mig-1g.10gb", 56),
                    Map.of("nvidia.com/mig.strategy", "mixed")),
                node(
                    "ts",
                    "i-0t",
                    "g6e.12xlarge",
                    Map.of("nvidia.com/gpu", 40),
                    Map.of("nvidia.com/gpu.replicas", "10"))),
            List.of(
                pod("serve", "small-0", "mig", Map.of("nvidia.com/mig-1g.10gb", 14.0), 8_000),
                pod("serve", "embed-0", "ts", Map.of("nvidia.com/gpu", 10.0), 4_000),
                pod("data", "loader-0", "mig", Map.of(), 48_000)),
            List.of(
                instance("i-0m", "p5.48xlarge", Lifecycle.ON_DEMAND, LONG_AGO),
                instance("i-0t", "g6e.12xlarge", Lifecycle.ON_DEMAND, LONG_AGO)),
            InventorySnapshot.empty("c1"),
            Duration.ofDays(40));
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
            new SpotPrices(List.of()),
            List.of(),
            commitments,
            util,
            Map.of()));
  }

  static CostReport.NodeCost byId(CostReport r, String id) {
    return r.nodes().stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
  }

  @Test
  void shouldChargeSharedGpusByThePhysicalGpusTheyBlockAndReconcile() {
    var r = report(Commitments.none("off"), Utilisation.none("off"));

    var mig = byId(r, "i-0m");
    assertThat(mig.accelerators()).isEqualTo(8);
    assertThat(mig.gpuCapacityHours()).isEqualTo(192.0);
    assertThat(mig.gpuRequestedHours()).isCloseTo(48.0, within(1e-6)); // 14 x 1/7 = 2 GPUs
    assertThat(mig.effectiveCost()).isEqualByComparingTo("240.00");
    assertThat(mig.allocations())
        .filteredOn(a -> a.pod().equals("small-0"))
        .singleElement()
        .satisfies(a -> assertThat(a.effectiveCost()).isEqualByComparingTo("60.00"));
    var ts = byId(r, "i-0t");
    assertThat(ts.accelerators()).isEqualTo(4);
    assertThat(ts.gpuSharing()).isEqualTo("time-slicing");
    assertThat(ts.gpuRequestedHours()).isCloseTo(24.0, within(1e-6)); // 10 of 40 replicas = 1 GPU
    assertThat(r.kpis().physicalGpus()).isEqualTo(12);
    assertThat(r.kpis().advertisedGpuUnits()).isEqualTo(96);
    assertThat(r.kpis().idleGpuPercent()).isCloseTo(100 * (1 - 72 / 288.0), within(0.01));
    assertThat(r.reconciliation().balanced()).isTrue();
    assertThat(r.reconciliation().physicalGpuHours()).isEqualTo(288.0);
  }

  @Test
  void shouldPriceACpuOnlyPodOnAGpuNodeUnderEveryRule() {
    var r = report(Commitments.none("off"), Utilisation.none("off"));

    assertThat(r.kpis().cpuOnlyPodsOnGpuNodes()).isEqualTo(1);
    var loader = r.cpuOnlyPodsOnGpuNodes().get(0);
    assertThat(loader.pod()).isEqualTo("loader-0");
    assertThat(loader.costByRule()).containsOnlyKeys("gpu", "cpu-memory");
    assertThat(loader.costByRule().get("gpu")).isEqualByComparingTo("0.00");
    // half the node by CPU (48 of 96 cores), memory 8 of 1024 GiB: 240 x (0.5 x 0.5 + 0.5 x 8/1024)
    assertThat(loader.costByRule().get("cpu-memory")).isEqualByComparingTo("60.94");
  }

  @Test
  void shouldPriceOnDemandNodesAtTheirCommitmentRateAndSayWhereItCameFrom() {
    var ce =
        new Commitments(
            Commitments.COST_EXPLORER,
            Map.of("us-east-1/p5", new Commitments.Coverage(0.8, "p5")),
            0.5,
            Map.of(),
            1,
            Map.of(),
            List.of());

    var r = report(ce, Utilisation.none("off"));

    var mig = byId(r, "i-0m");
    // 80 % covered at half price: 10 x (0.2 + 0.8 x 0.5) = $6/h
    assertThat(mig.effectivePerHour()).isEqualByComparingTo("6.0000");
    assertThat(mig.listCost()).isEqualByComparingTo("240.00");
    assertThat(mig.effectiveCost()).isEqualByComparingTo("144.00");
    assertThat(mig.commitmentSavings()).isEqualByComparingTo("96.00");
    assertThat(mig.priceSource()).isEqualTo("savings-plan (cost-explorer)");
    assertThat(mig.priceDetail()).contains("Savings Plans cover 80 %");
    assertThat(byId(r, "i-0t").priceSource()).isEqualTo("api");
    assertThat(r.kpis().commitmentSavings()).isEqualByComparingTo("96.00");
    assertThat(r.header().priceSources()).containsEntry("savings-plan (cost-explorer)", 1L);

    var table =
        report(Commitments.table(Map.of("g6e.*", new BigDecimal("7.5"))), Utilisation.none("off"));
    assertThat(byId(table, "i-0t").effectiveCost()).isEqualByComparingTo("180.00");
    assertThat(byId(table, "i-0t").priceSource()).isEqualTo("rate-table");
  }

  @Test
  void shouldMeasureIdleBothWaysAndPriceTokens() {
    var util =
        new Utilisation(
            "prometheus",
            Map.of("mig", 25.0),
            Map.of("serve/small-0", 60.0, "data/loader-0", 99.0),
            List.of(
                new Utilisation.Tokens("serve", "small-0", "llama-8b", "vllm", 3.0e7),
                new Utilisation.Tokens("serve", "embed-0", "e5", "vllm", 1.0e7)),
            List.of());

    var r = report(Commitments.none("off"), util);

    var mig = byId(r, "i-0m");
    assertThat(mig.utilisationPercent()).isEqualTo(25.0);
    assertThat(mig.utilisationIdleCost()).isEqualByComparingTo("180.00");
    assertThat(mig.idleCost()).isEqualByComparingTo("180.00"); // 6 of 8 GPUs not requested
    assertThat(r.kpis().gpuUtilisationPercent()).isEqualTo(25.0); // only the measured node
    assertThat(r.kpis().utilisationIdleGpuCost()).isEqualByComparingTo("180.00");
    // a CPU-only pod gets no GPU utilisation even when the exporter names it
    assertThat(mig.allocations())
        .filteredOn(a -> a.pod().equals("loader-0"))
        .singleElement()
        .satisfies(a -> assertThat(a.utilisationPercent()).isNull());
    // small-0 costs $60 for 30M tokens = $2 per million
    assertThat(r.tokens())
        .filteredOn(t -> t.model().equals("llama-8b"))
        .singleElement()
        .satisfies(t -> assertThat(t.costPerMillionTokens()).isEqualByComparingTo("2.0000"));
    assertThat(r.hourly()).hasSize(24);
    assertThat(r.hourly().get(0).byNodePool()).containsKeys("pool-mig", "pool-ts");
    BigDecimal sum =
        r.hourly().stream()
            .flatMap(h -> h.byCapacityType().values().stream())
            .reduce(BigDecimal.ZERO, BigDecimal::add);
    assertThat(sum).isEqualByComparingTo(r.kpis().totalCost());
  }
}

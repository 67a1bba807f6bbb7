package io.gpufleet.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.core.pricing.StaticPrices;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The generated table ({@link CatalogData}) against the rules and the reference facts. */
class InstanceCatalogDataTest {

  @Test
  void shouldGiveEveryRowTheBucketTheFamilyRuleGives() {
    assertThat(InstanceCatalog.entries())
        .allSatisfy(
            e ->
                assertThat(e.bucket())
                    .as(e.instanceType())
                    .isEqualTo(InstanceCatalog.bucketOf(e.instanceType())));
  }

  @Test
  void shouldDescribeEveryAcceleratedRowCompletely() {
    assertThat(InstanceCatalog.entries().stream().filter(CatalogEntry::accelerated))
        .hasSizeGreaterThan(80)
        .allSatisfy(
            e -> {
              assertThat(e.accelerators()).as(e.instanceType()).isPositive();
              assertThat(e.acceleratorModel()).as(e.instanceType()).isNotBlank();
              assertThat(e.acceleratorMemoryMib()).as(e.instanceType()).isPositive();
              assertThat(e.bucket().accelerated()).as(e.instanceType()).isTrue();
            });
    assertThat(InstanceCatalog.all())
        .hasSameSizeAs(
            InstanceCatalog.entries().stream().filter(CatalogEntry::accelerated).toList());
  }

  @ParameterizedTest(name = "{0}: {1} vCPU, {2} MiB, {4} x {5} {6} MiB, {3}")
  @CsvSource({
    "p5.48xlarge, 192, 2097152, P, 8, H100, 81920, NVIDIA_GPU",
    "p4d.24xlarge, 96, 1179648, P, 8, A100, 40960, NVIDIA_GPU",
    "p4de.24xlarge, 96, 1179648, P, 8, A100, 81920, NVIDIA_GPU",
    "p5en.48xlarge, 192, 2097152, P, 8, H200, 144384, NVIDIA_GPU",
    "p6-b200.48xlarge, 192, 2097152, P, 8, B200, 183359, NVIDIA_GPU",
    "g6e.12xlarge, 48, 393216, G_VT, 4, L40S, 45776, NVIDIA_GPU",
    "g5.xlarge, 4, 16384, G_VT, 1, A10G, 22888, NVIDIA_GPU",
    "g4ad.8xlarge, 32, 131072, G_VT, 2, Radeon Pro V520, 8192, AMD_GPU",
    "trn1.32xlarge, 128, 524288, TRN, 16, Trainium, 32768, AWS_TRAINIUM",
    "trn2.48xlarge, 192, 2097152, TRN, 16, Trainium2, 98304, AWS_TRAINIUM",
    "inf1.24xlarge, 96, 196608, INF, 16, Inferentia, 8192, AWS_INFERENTIA",
    "inf2.48xlarge, 192, 786432, INF, 12, Inferentia2, 32768, AWS_INFERENTIA",
    "dl1.24xlarge, 96, 786432, DL, 8, Gaudi HL-205, 32768, HABANA_GAUDI",
    "dl2q.24xlarge, 96, 786432, DL, 8, Qualcomm AI100, 16000, QUALCOMM_AI100",
    "vt1.24xlarge, 96, 196608, G_VT, 8, U30, 24576, XILINX_MEDIA"
  })
  void shouldCarryTheFactsDescribeInstanceTypesReports(
      String type,
      int vcpus,
      long memoryMib,
      QuotaBucket bucket,
      int accelerators,
      String model,
      long acceleratorMib,
      AcceleratorKind kind) {
    var e = InstanceCatalog.entry(type).orElseThrow();
    assertThat(e.vcpus()).isEqualTo(vcpus);
    assertThat(e.memoryMib()).isEqualTo(memoryMib);
    assertThat(e.bucket()).isEqualTo(bucket);
    assertThat(e.accelerators()).isEqualTo(accelerators);
    assertThat(e.acceleratorModel()).isEqualTo(model);
    assertThat(e.acceleratorMemoryMib()).isEqualTo(acceleratorMib);
    assertThat(e.kind()).isEqualTo(kind);
  }

  @Test
  void shouldSayWhereFactsOutsideTheDumpComeFrom() {
    assertThat(InstanceCatalog.factsSource()).startsWith("moto 5.2.5 ");
    for (String t : new String[] {"p3.2xlarge", "p3.16xlarge", "g4ad.xlarge", "dl1.24xlarge"}) {
      assertThat(InstanceCatalog.entry(t).orElseThrow().origin())
          .as(t)
          .isEqualTo(CatalogEntry.Origin.SUPPLEMENT);
    }
    // the dump reports 512 GiB per Trainium2 device; the Neuron docs say 96 GiB
    assertThat(InstanceCatalog.entry("trn2.48xlarge").orElseThrow().origin())
        .isEqualTo(CatalogEntry.Origin.DUMP_CORRECTED);
    assertThat(InstanceCatalog.entry("p5.48xlarge").orElseThrow().origin())
        .isEqualTo(CatalogEntry.Origin.DUMP);
  }

  @Test
  void shouldCountAFractionalGpuAsOneDeviceWithItsShare() {
    var e = InstanceCatalog.entry("g6f.large").orElseThrow();
    assertThat(e.accelerators()).isEqualTo(1);
    assertThat(e.gpuPartition()).isEqualTo(0.125);
    assertThat(e.acceleratorResource()).contains("nvidia.com/gpu");
    assertThat(InstanceCatalog.entry("p5.48xlarge").orElseThrow().gpuPartition()).isEqualTo(1.0);
  }

  @Test
  void shouldKeepCpuTypesOutOfTheAcceleratedViews() {
    assertThat(InstanceCatalog.entry("m6i.xlarge").orElseThrow().kind())
        .isEqualTo(AcceleratorKind.NONE);
    assertThat(InstanceCatalog.find("m6i.xlarge")).isEmpty();
    assertThat(InstanceCatalog.all()).noneMatch(s -> s.instanceType().startsWith("m6i"));
    // FPGA-only types are not accelerators this product schedules or prices
    assertThat(InstanceCatalog.entry("f2.12xlarge")).isEmpty();
  }

  @ParameterizedTest(name = "{0} costs {1} USD/h")
  @CsvSource({
    // gpu-sharing-cost.md section 8: after the June 2025 price cut
    "p4d.24xlarge, 21.957642",
    "p4de.24xlarge, 27.44705",
    "p5.48xlarge, 55.04",
    "p5en.48xlarge, 63.296",
    "p6-b200.48xlarge, 113.9328"
  })
  void shouldPriceP4AndP5AfterTheJune2025Cut(String type, String usd) {
    var p = StaticPrices.price(type).orElseThrow();
    assertThat(p.usdPerHour()).isEqualByComparingTo(usd);
    assertThat(p.asOf()).isEqualTo(LocalDate.of(2026, 1, 21));
    assertThat(p.source().description()).contains("instances.vantage.sh");
    var hourly = new StaticPrices().hourly("us-east-1", type).orElseThrow();
    assertThat(hourly.source()).isEqualTo(PriceSource.STATIC);
    assertThat(hourly.asOf()).contains(LocalDate.of(2026, 1, 21));
  }

  @Test
  void shouldDateAndSourceEveryStaticPriceAndFlagTheUnverified() {
    assertThat(InstanceCatalog.entries().stream().flatMap(e -> e.staticPrice().stream()))
        .allSatisfy(
            p -> {
              assertThat(p.asOf()).isNotNull();
              assertThat(p.source().description()).isNotBlank();
            });
    var unverified =
        InstanceCatalog.entries().stream()
            .filter(
                e ->
                    e.staticPrice()
                        .map(p -> p.source().id().startsWith("unverified"))
                        .orElse(false))
            .toList();
    assertThat(unverified).isNotEmpty().noneMatch(CatalogEntry::accelerated);
    assertThat(unverified.getFirst().price().source().description()).contains("NOT checked");
    assertThat(StaticPrices.SOURCE).contains("NOT checked").contains("m5.large");
  }

  @Test
  void shouldHaveNoStaticPriceWhereNoneIsSourced() {
    assertThat(StaticPrices.price("p5e.48xlarge")).isEmpty();
    assertThat(StaticPrices.price("dl1.24xlarge")).isEmpty();
    assertThat(new StaticPrices().hourly("us-east-1", "trn2.48xlarge")).isEmpty();
  }
}

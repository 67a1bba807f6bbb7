package io.gpufleet.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InstanceCatalogTest {

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "dl1.24xlarge, DL",
    "trn2.48xlarge, TRN",
    "trn1n.32xlarge, TRN",
    "inf2.48xlarge, INF",
    "p4d.24xlarge, P",
    "p5.48xlarge, P",
    "p5e.48xlarge, P",
    "p5en.48xlarge, P",
    "p6-b200.48xlarge, P",
    "g4dn.xlarge, G_VT",
    "g5.12xlarge, G_VT",
    "g6.xlarge, G_VT",
    "g6e.48xlarge, G_VT",
    "gr6.4xlarge, G_VT",
    "vt1.3xlarge, G_VT",
    "x2idn.32xlarge, X",
    "f1.2xlarge, F",
    "u-6tb1.metal, HIGH_MEMORY",
    "hpc7g.16xlarge, HPC",
    "d3.xlarge, STANDARD",
    "t3.micro, STANDARD",
    "i4i.large, STANDARD",
    "m7i.large, STANDARD"
  })
  void shouldMapAFamilyToItsBucketByTheLongestPrefix(String type, QuotaBucket bucket) {
    assertThat(InstanceCatalog.bucketOf(type)).isEqualTo(bucket);
  }

  @Test
  void shouldKnowTheVcpusQuotasCount() {
    assertThat(InstanceCatalog.find("p5.48xlarge").orElseThrow().vcpus()).isEqualTo(192);
    assertThat(InstanceCatalog.find("g6e.12xlarge").orElseThrow().vcpus()).isEqualTo(48);
    assertThat(InstanceCatalog.find("g6e.48xlarge").orElseThrow().accelerators()).isEqualTo(8);
  }

  @Test
  void shouldNameQuotaCodesAndUsageClasses() {
    assertThat(QuotaBucket.P.fallbackQuotaCode(CapacityType.SPOT)).contains("L-7212CCBC");
    assertThat(QuotaBucket.G_VT.fallbackQuotaCode(CapacityType.ON_DEMAND)).contains("L-DB2E81BA");
    assertThat(QuotaBucket.G_VT.usageClass(CapacityType.SPOT)).isEqualTo("G/Spot");
    assertThat(QuotaBucket.byQuota("All P Spot Instance Requests"))
        .contains(new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT));
    assertThat(QuotaBucket.byQuota("All P5 Spot Instance Requests")).isEmpty();
    assertThat(QuotaBucket.acceleratedKeys()).hasSize(12);
  }

  @Test
  void shouldFallBackToTheHighMemoryAndHpcQuotaCodesWhenResolvingByNameFails() {
    assertThat(QuotaBucket.HIGH_MEMORY.fallbackQuotaCode(CapacityType.ON_DEMAND))
        .contains("L-43DA4232");
    assertThat(QuotaBucket.HPC.fallbackQuotaCode(CapacityType.ON_DEMAND)).contains("L-F7808C92");
    // neither family has a Spot quota of its own
    assertThat(QuotaBucket.HIGH_MEMORY.fallbackQuotaCode(CapacityType.SPOT)).isEmpty();
    assertThat(QuotaBucket.HPC.fallbackQuotaCode(CapacityType.SPOT)).isEmpty();
    assertThat(QuotaBucket.byQuota("L-43DA4232"))
        .contains(new QuotaBucket.Key(QuotaBucket.HIGH_MEMORY, CapacityType.ON_DEMAND));
    assertThat(QuotaBucket.byQuota("L-F7808C92"))
        .contains(new QuotaBucket.Key(QuotaBucket.HPC, CapacityType.ON_DEMAND));
  }
}

package io.gpufleet.core.pricing;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The last-resort price table for common GPU (and a few system-node) instance types, used when
 * neither the Pricing API nor a cached price answers. It carries its as-of date and source, and
 * every price it gives is labelled {@link PriceSource#STATIC} with that date.
 *
 * <p>Source: the public AWS EC2 On-Demand price list, Linux, shared tenancy, region us-east-1, as
 * of {@link #AS_OF} (P4/P5 prices are from before the June 2025 price reduction, so they overstate
 * today's list price; the API or the cache replaces them whenever reachable). Other commercial and
 * China regions have no static entries: a price from the wrong region would be presented as fact.
 *
 * <p>GovCloud is the exception: it has no Pricing API endpoint (and a call to the commercial one
 * would cross partitions), so this table is its only price. It gives the us-east-1 figure, labelled
 * {@link PriceSource#STATIC} with its as-of date, and {@link #sourceFor} states that it is the
 * us-east-1 list price, not GovCloud's own.
 */
public final class StaticPrices implements OnDemandPrices {
  public static final LocalDate AS_OF = LocalDate.of(2025, 5, 1);
  public static final String SOURCE =
      "AWS EC2 On-Demand price list, Linux/shared, us-east-1, as of " + AS_OF;
  public static final String REGION = "us-east-1";

  /** Hardware facts the report needs when Kubernetes does not tell (terminated nodes). */
  public record InstanceFacts(
      String instanceType,
      int accelerators,
      String acceleratorResource,
      int vcpus,
      int memoryGiB,
      BigDecimal usdPerHour) {}

  private static final Map<String, InstanceFacts> TABLE = new TreeMap<>();

  private static void gpu(String type, int gpus, int vcpu, int mem, String usd) {
    TABLE.put(
        type, new InstanceFacts(type, gpus, "nvidia.com/gpu", vcpu, mem, new BigDecimal(usd)));
  }

  private static void neuron(String type, int devices, int vcpu, int mem, String usd) {
    TABLE.put(
        type,
        new InstanceFacts(type, devices, "aws.amazon.com/neuron", vcpu, mem, new BigDecimal(usd)));
  }

  private static void cpu(String type, int vcpu, int mem, String usd) {
    TABLE.put(type, new InstanceFacts(type, 0, null, vcpu, mem, new BigDecimal(usd)));
  }

  static {
    gpu("p5.48xlarge", 8, 192, 2048, "98.32");
    gpu("p4d.24xlarge", 8, 96, 1152, "32.7726");
    gpu("p4de.24xlarge", 8, 96, 1152, "40.9657");
    gpu("p3.2xlarge", 1, 8, 61, "3.06");
    gpu("p3.8xlarge", 4, 32, 244, "12.24");
    gpu("p3.16xlarge", 8, 64, 488, "24.48");
    gpu("g6e.xlarge", 1, 4, 32, "1.861");
    gpu("g6e.2xlarge", 1, 8, 64, "2.24208");
    gpu("g6e.4xlarge", 1, 16, 128, "3.00424");
    gpu("g6e.8xlarge", 1, 32, 256, "4.52856");
    gpu("g6e.12xlarge", 4, 48, 384, "10.49264");
    gpu("g6e.16xlarge", 1, 64, 512, "7.57719");
    gpu("g6e.24xlarge", 4, 96, 768, "15.06559");
    gpu("g6e.48xlarge", 8, 192, 1536, "30.13118");
    gpu("g6.xlarge", 1, 4, 16, "0.8048");
    gpu("g6.2xlarge", 1, 8, 32, "0.9776");
    gpu("g6.4xlarge", 1, 16, 64, "1.3232");
    gpu("g6.8xlarge", 1, 32, 128, "2.0144");
    gpu("g6.12xlarge", 4, 48, 192, "4.6016");
    gpu("g6.16xlarge", 1, 64, 256, "3.3968");
    gpu("g6.24xlarge", 4, 96, 384, "6.6752");
    gpu("g6.48xlarge", 8, 192, 768, "13.3504");
    gpu("g5.xlarge", 1, 4, 16, "1.006");
    gpu("g5.2xlarge", 1, 8, 32, "1.212");
    gpu("g5.4xlarge", 1, 16, 64, "1.624");
    gpu("g5.8xlarge", 1, 32, 128, "2.448");
    gpu("g5.12xlarge", 4, 48, 192, "5.672");
    gpu("g5.16xlarge", 1, 64, 256, "4.096");
    gpu("g5.24xlarge", 4, 96, 384, "8.144");
    gpu("g5.48xlarge", 8, 192, 768, "16.288");
    gpu("g4dn.xlarge", 1, 4, 16, "0.526");
    gpu("g4dn.2xlarge", 1, 8, 32, "0.752");
    gpu("g4dn.4xlarge", 1, 16, 64, "1.204");
    gpu("g4dn.8xlarge", 1, 32, 128, "2.176");
    gpu("g4dn.12xlarge", 4, 48, 192, "3.912");
    gpu("g4dn.16xlarge", 1, 64, 256, "4.352");
    gpu("g4dn.metal", 8, 96, 384, "7.824");
    neuron("inf2.xlarge", 1, 4, 16, "0.7582");
    neuron("inf2.8xlarge", 1, 32, 128, "1.9679");
    neuron("inf2.24xlarge", 6, 96, 384, "6.4906");
    neuron("inf2.48xlarge", 12, 192, 768, "12.9813");
    neuron("trn1.2xlarge", 1, 8, 32, "1.34375");
    neuron("trn1.32xlarge", 16, 128, 512, "21.50");
    cpu("m5.large", 2, 8, "0.096");
    cpu("m5.xlarge", 4, 16, "0.192");
    cpu("m6i.large", 2, 8, "0.096");
    cpu("m6i.xlarge", 4, 16, "0.192");
    cpu("m7i.large", 2, 8, "0.1008");
    cpu("m7i.xlarge", 4, 16, "0.2016");
    cpu("c5.large", 2, 4, "0.085");
  }

  public static Optional<InstanceFacts> facts(String instanceType) {
    return Optional.ofNullable(TABLE.get(instanceType));
  }

  public static java.util.Set<String> instanceTypes() {
    return java.util.Collections.unmodifiableSet(TABLE.keySet());
  }

  /** Where this table's price for {@code region} comes from, in words for reports. */
  public static String sourceFor(String region) {
    if (PricingEndpoint.partitionOf(region).equals("aws-us-gov")) {
      return "static table: "
          + SOURCE
          + ", used for "
          + region
          + " because GovCloud has no Pricing API endpoint; it is the us-east-1 list price, not"
          + " GovCloud's own";
    }
    return "static table: " + SOURCE;
  }

  @Override
  public Optional<HourlyPrice> hourly(String region, String instanceType) {
    if (!REGION.equals(region) && !PricingEndpoint.partitionOf(region).equals("aws-us-gov")) {
      return Optional.empty();
    }
    return facts(instanceType)
        .map(
            f ->
                new HourlyPrice(
                    region,
                    instanceType,
                    f.usdPerHour(),
                    "USD",
                    PriceSource.STATIC,
                    Optional.of(AS_OF)));
  }
}

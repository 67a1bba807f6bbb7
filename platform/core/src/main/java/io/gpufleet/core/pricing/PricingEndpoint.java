package io.gpufleet.core.pricing;

import java.util.Locale;

/**
 * The Pricing API is served from a few endpoint regions, unrelated to the priced region, and never
 * across partitions (credentials of one partition are not valid in another): the commercial
 * partition from us-east-1 (also eu-central-1, ap-south-1), China from cn-northwest-1 (prices in
 * CNY). GovCloud (and the isolated and European Sovereign Cloud partitions, whose Pricing endpoint
 * this code does not know) have none: their prices come from the cache or the static table, never
 * from a call to another partition.
 */
public final class PricingEndpoint {
  private PricingEndpoint() {}

  /** The partition of a region: aws, aws-cn, aws-us-gov, aws-iso, aws-iso-b, ... */
  public static String partitionOf(String region) {
    String r = region.toLowerCase(Locale.ROOT);
    if (r.startsWith("cn-")) {
      return "aws-cn";
    }
    if (r.startsWith("us-gov-")) {
      return "aws-us-gov";
    }
    if (r.startsWith("us-isob-")) {
      return "aws-iso-b";
    }
    if (r.startsWith("us-iso-")) {
      return "aws-iso";
    }
    if (r.startsWith("eu-isoe-")) {
      return "aws-iso-e";
    }
    if (r.startsWith("us-isof-")) {
      return "aws-iso-f";
    }
    if (r.startsWith("eusc-")) {
      return "aws-eusc";
    }
    return "aws";
  }

  /** True when the priced region's partition has a Pricing API endpoint (commercial, China). */
  public static boolean hasPricingEndpoint(String pricedRegion) {
    String p = partitionOf(pricedRegion);
    return p.equals("aws") || p.equals("aws-cn");
  }

  /**
   * The Pricing endpoint region for a priced region's partition.
   *
   * @throws IllegalArgumentException for a partition without one (GovCloud, isolated)
   */
  public static String endpointRegionFor(String pricedRegion) {
    return switch (partitionOf(pricedRegion)) {
      case "aws" -> "us-east-1";
      case "aws-cn" -> "cn-northwest-1";
      default ->
          throw new IllegalArgumentException(
              "no Pricing API endpoint in partition "
                  + partitionOf(pricedRegion)
                  + " (region "
                  + pricedRegion
                  + "): price it from the cache or the static table");
    };
  }

  public static String currencyFor(String pricedRegion) {
    return partitionOf(pricedRegion).equals("aws-cn") ? "CNY" : "USD";
  }
}

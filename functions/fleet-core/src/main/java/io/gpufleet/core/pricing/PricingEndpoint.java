package io.gpufleet.core.pricing;

import java.util.Locale;

/**
 * The Pricing API is served from a few endpoint regions, unrelated to the priced region: the
 * commercial partition from us-east-1 (also eu-central-1, ap-south-1), China from cn-northwest-1
 * (prices in CNY).
 */
public final class PricingEndpoint {
  private PricingEndpoint() {}

  public static String endpointRegionFor(String pricedRegion) {
    String r = pricedRegion.toLowerCase(Locale.ROOT);
    if (r.startsWith("cn-")) {
      return "cn-northwest-1";
    }
    return "us-east-1";
  }

  public static String currencyFor(String pricedRegion) {
    return pricedRegion.toLowerCase(Locale.ROOT).startsWith("cn-") ? "CNY" : "USD";
  }
}

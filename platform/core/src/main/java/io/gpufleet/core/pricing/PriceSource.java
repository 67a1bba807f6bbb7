package io.gpufleet.core.pricing;

/** Where a price came from; every priced row in a report carries one. */
public enum PriceSource {
  /** The Pricing API, during this run. */
  API,
  /** A price kept from an earlier run (memory or S3). */
  CACHE,
  /** The built-in fallback table (it states its as-of date). */
  STATIC,
  /** DescribeSpotPriceHistory, time-weighted over a window. */
  SPOT_HISTORY
}

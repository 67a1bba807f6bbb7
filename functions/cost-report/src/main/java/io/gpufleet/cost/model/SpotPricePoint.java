package io.gpufleet.cost.model;

import java.math.BigDecimal;
import java.time.Instant;

/** One DescribeSpotPriceHistory entry: from {@code at} on, the price in that zone. */
public record SpotPricePoint(String zone, String instanceType, Instant at, BigDecimal perHour) {}

package io.gpufleet.preflight.model;

import io.gpufleet.core.catalog.InstanceSpec;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.pricing.HourlyPrice;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the adapters found out about one region for one plan. Missing map entries mean "not offered"
 * (offerings), "unknown" (quotas, prices) or "no data" (usage); {@code notes} say which optional
 * reads failed and why.
 */
public record RegionFacts(
    String region,
    Map<String, InstanceSpec> specs,
    Map<String, Set<String>> offeredZones,
    Map<QuotaBucket.Key, QuotaValue> quotas,
    Map<QuotaBucket.Key, Double> usage,
    Map<String, Map<String, BigDecimal>> spotPrices,
    Map<String, HourlyPrice> onDemandPrices,
    Map<String, Integer> availableReservations,
    Map<String, List<CapacityBlockOffer>> capacityBlocks,
    List<String> notes) {}

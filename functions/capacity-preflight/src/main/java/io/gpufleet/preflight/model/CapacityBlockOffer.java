package io.gpufleet.preflight.model;

import java.math.BigDecimal;
import java.time.Instant;

/** One Capacity Block for ML offering (single AZ, up to 64 instances). */
public record CapacityBlockOffer(
    String offeringId,
    String instanceType,
    String availabilityZone,
    int instanceCount,
    Instant start,
    Instant end,
    int durationHours,
    BigDecimal upfrontFee,
    String currency) {}

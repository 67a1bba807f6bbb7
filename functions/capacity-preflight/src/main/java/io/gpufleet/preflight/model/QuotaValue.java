package io.gpufleet.preflight.model;

import io.gpufleet.core.catalog.QuotaBucket;

/**
 * An applied EC2 vCPU quota. {@code resolvedBy} says how the code was found ("name" from
 * ListServiceQuotas, "code" when only the reference table's code matched); {@code usageClass} is
 * the AWS/Usage Class dimension from the quota's UsageMetric (or the reference table's).
 */
public record QuotaValue(
    QuotaBucket.Key key,
    String quotaCode,
    String quotaName,
    double value,
    String usageClass,
    String resolvedBy,
    boolean adjustable) {}

package io.gpufleet.preflight.model;

import java.math.BigDecimal;
import java.util.List;

/**
 * Which type of a plan entry the region would use, where it is offered and what it would cost per
 * hour (null when the price is unknown). {@code gpus}, {@code gpuModel}, {@code memoryMib} describe
 * one instance.
 */
public record EntryChoice(
    String entry,
    String instanceType,
    String capacityType,
    int count,
    int vcpus,
    int gpus,
    String gpuModel,
    long memoryMib,
    List<String> zones,
    BigDecimal unitPricePerHour,
    String priceSource,
    Integer spotScore) {}

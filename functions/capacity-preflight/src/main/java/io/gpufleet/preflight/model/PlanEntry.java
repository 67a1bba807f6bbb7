package io.gpufleet.preflight.model;

import io.gpufleet.core.catalog.CapacityType;
import java.util.List;

/**
 * One line of a plan: {@code count} instances of any one of {@code instanceTypes} (in order of
 * preference), bought as {@code capacityType}, optionally only in the named availability zones.
 */
public record PlanEntry(
    String name,
    List<String> instanceTypes,
    int count,
    CapacityType capacityType,
    List<String> zones) {
  public PlanEntry {
    instanceTypes = List.copyOf(instanceTypes);
    zones = List.copyOf(zones);
  }
}

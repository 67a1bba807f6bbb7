package io.gpufleet.preflight.model;

import java.util.List;

/**
 * A planned GPU fleet: what to launch and where to look. {@code regions} empty with {@code
 * allRegions} true means every region that offers any type of the plan.
 */
public record Plan(String name, List<PlanEntry> entries, List<String> regions, boolean allRegions) {
  public Plan {
    entries = List.copyOf(entries);
    regions = List.copyOf(regions);
  }

  /** Every instance type the plan names, in order, without repeats. */
  public List<String> instanceTypes() {
    return entries.stream().flatMap(e -> e.instanceTypes().stream()).distinct().toList();
  }

  public Plan withRegions(List<String> regions) {
    return new Plan(name, entries, regions, false);
  }
}

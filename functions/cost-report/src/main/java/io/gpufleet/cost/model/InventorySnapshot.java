package io.gpufleet.cost.model;

import java.time.Instant;
import java.util.List;

/** The inventory a run leaves in S3 for the runs after it. */
public record InventorySnapshot(
    int version, String cluster, Instant takenAt, List<NodeRecord> nodes, List<PodRecord> pods) {
  public static final int VERSION = 1;

  public static InventorySnapshot empty(String cluster) {
    return new InventorySnapshot(VERSION, cluster, null, List.of(), List.of());
  }
}

package io.gpufleet.cost.model;

import java.time.Instant;

/**
 * One pod of the inventory (and of the snapshot), its requests already expressed in the units of
 * its node's accelerator resource. {@code end} is null while it runs.
 */
public record PodRecord(
    String uid,
    String namespace,
    String name,
    String nodeName,
    String team,
    double accelerators,
    long cpuMillis,
    long memoryBytes,
    Instant start,
    Instant end,
    Instant lastSeen) {

  /** The same pod ended at {@code at} (a known finish, or the last time it was seen). */
  public PodRecord withEnd(Instant at) {
    return new PodRecord(
        uid,
        namespace,
        name,
        nodeName,
        team,
        accelerators,
        cpuMillis,
        memoryBytes,
        start,
        at,
        lastSeen);
  }
}

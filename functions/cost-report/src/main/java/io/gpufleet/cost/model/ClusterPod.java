package io.gpufleet.cost.model;

import java.time.Instant;

/**
 * A scheduled pod's effective requests (containers summed, the larger of that and any init
 * container, plus pod overhead). {@code accelerators} maps each accelerator resource to its
 * request. {@code finishedAt} is set for pods that have run to completion.
 */
public record ClusterPod(
    String namespace,
    String name,
    String uid,
    String nodeName,
    String team,
    java.util.Map<String, Double> accelerators,
    long cpuMillis,
    long memoryBytes,
    Instant startedAt,
    Instant finishedAt) {

  /** The same pod requesting {@code requests} (its containers' plus its DRA claims'). */
  public ClusterPod withAccelerators(java.util.Map<String, Double> requests) {
    return new ClusterPod(
        namespace,
        name,
        uid,
        nodeName,
        team,
        requests,
        cpuMillis,
        memoryBytes,
        startedAt,
        finishedAt);
  }
}

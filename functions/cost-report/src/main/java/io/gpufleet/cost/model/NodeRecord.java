package io.gpufleet.cost.model;

import java.time.Instant;

/**
 * One node of the inventory (and of the S3 snapshot): what is known about an instance that was part
 * of the cluster. {@code end} is null while it runs; {@code endEstimated} says the end is the last
 * time it was seen rather than a known stop time. {@code ec2Matched} is false when no EC2 instance
 * could be found for a node (it is priced from its labels); {@code inCluster} is false for tagged
 * instances that never showed up as nodes. {@code accelerators} counts physical accelerators (a
 * MIG-partitioned or time-sliced GPU is one); {@code gpus} says how the node advertises and shares
 * them (null for instances never seen as nodes and for snapshots written before it existed).
 */
public record NodeRecord(
    String id,
    String nodeName,
    String instanceType,
    String region,
    String zone,
    Lifecycle lifecycle,
    String nodePool,
    String nodeGroup,
    Instant start,
    Instant end,
    boolean endEstimated,
    int accelerators,
    String acceleratorResource,
    long cpuMillis,
    long memoryBytes,
    boolean ec2Matched,
    boolean inCluster,
    Instant firstSeen,
    Instant lastSeen,
    NodeGpus gpus) {

  public NodeRecord(
      String id,
      String nodeName,
      String instanceType,
      String region,
      String zone,
      Lifecycle lifecycle,
      String nodePool,
      String nodeGroup,
      Instant start,
      Instant end,
      boolean endEstimated,
      int accelerators,
      String acceleratorResource,
      long cpuMillis,
      long memoryBytes,
      boolean ec2Matched,
      boolean inCluster,
      Instant firstSeen,
      Instant lastSeen) {
    this(
        id,
        nodeName,
        instanceType,
        region,
        zone,
        lifecycle,
        nodePool,
        nodeGroup,
        start,
        end,
        endEstimated,
        accelerators,
        acceleratorResource,
        cpuMillis,
        memoryBytes,
        ec2Matched,
        inCluster,
        firstSeen,
        lastSeen,
        null);
  }

  /** The same node ended at {@code at}; {@code estimated}: the last time it was seen. */
  public NodeRecord withEnd(Instant at, boolean estimated) {
    return new NodeRecord(
        id,
        nodeName,
        instanceType,
        region,
        zone,
        lifecycle,
        nodePool,
        nodeGroup,
        start,
        at,
        estimated,
        accelerators,
        acceleratorResource,
        cpuMillis,
        memoryBytes,
        ec2Matched,
        inCluster,
        firstSeen,
        lastSeen,
        gpus);
  }

  /** NodePool, else node group, else "(none)": the rollup key for "where nodes come from". */
  public String group() {
    if (nodePool != null && !nodePool.isBlank()) {
      return nodePool;
    }
    if (nodeGroup != null && !nodeGroup.isBlank()) {
      return "nodegroup/" + nodeGroup;
    }
    return "(none)";
  }
}

package io.gpufleet.cost.model;

import java.time.Instant;

/**
 * A Kubernetes node as the report needs it. {@code accelerators} is the allocatable count of the
 * node's accelerator resource ({@code acceleratorResource}: nvidia.com/gpu or an
 * aws.amazon.com/neuron* resource), 0 for nodes without one.
 */
public record ClusterNode(
    String name,
    String providerId,
    String instanceId,
    String instanceType,
    String zone,
    String capacityTypeLabel,
    String nodePool,
    String nodeGroup,
    Instant createdAt,
    int accelerators,
    String acceleratorResource,
    long cpuMillis,
    long memoryBytes) {

  /** The instance id in an AWS providerID ({@code aws:///us-east-1a/i-0abc}), or null. */
  public static String instanceIdOf(String providerId) {
    if (providerId == null || !providerId.startsWith("aws://")) {
      return null;
    }
    int slash = providerId.lastIndexOf('/');
    String id = providerId.substring(slash + 1);
    return id.startsWith("i-") ? id : null;
  }
}

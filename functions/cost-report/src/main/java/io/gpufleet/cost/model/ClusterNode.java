package io.gpufleet.cost.model;

import java.time.Instant;

/**
 * A Kubernetes node as the report needs it. {@code accelerators} is the allocatable count of the
 * node's accelerator resource ({@code acceleratorResource}: nvidia.com/gpu or an
 * aws.amazon.com/neuron* resource), 0 for nodes without one. {@code gpuResources} holds every
 * allocatable NVIDIA resource as advertised (nvidia.com/gpu, nvidia.com/gpu.shared,
 * nvidia.com/mig-*) plus the GPU devices DRA drivers publish for the node in ResourceSlices ({@link
 * #DRA_GPU}, {@code dra:mig-<profile>}); {@code gpuLabels} the node's {@code nvidia.com/*} labels
 * (sharing strategy, replicas, MIG strategy, product, device-plugin config).
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
    long memoryBytes,
    java.util.Map<String, Integer> gpuResources,
    java.util.Map<String, String> gpuLabels) {

  /** A full GPU allocated through DRA (driver gpu.nvidia.com, device type gpu). */
  public static final String DRA_GPU = "dra:gpu";

  /** A MIG device allocated through DRA: this prefix plus the profile ("dra:mig-3g.40gb"). */
  public static final String DRA_MIG = "dra:mig-";

  public ClusterNode {
    gpuResources = gpuResources == null ? java.util.Map.of() : java.util.Map.copyOf(gpuResources);
    gpuLabels = gpuLabels == null ? java.util.Map.of() : java.util.Map.copyOf(gpuLabels);
  }

  /** A node whose only accelerator facts are the count of one resource (no sharing labels). */
  public ClusterNode(
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
    this(
        name,
        providerId,
        instanceId,
        instanceType,
        zone,
        capacityTypeLabel,
        nodePool,
        nodeGroup,
        createdAt,
        accelerators,
        acceleratorResource,
        cpuMillis,
        memoryBytes,
        acceleratorResource != null && acceleratorResource.startsWith("nvidia.com/")
            ? java.util.Map.of(acceleratorResource, accelerators)
            : java.util.Map.of(),
        java.util.Map.of());
  }

  /** The same node with the instance type EC2 reports (its labels may lack it). */
  public ClusterNode withInstanceType(String type) {
    return with(type, gpuResources);
  }

  /** The same node advertising {@code resources} (its device-plugin ones plus DRA's). */
  public ClusterNode withGpuResources(java.util.Map<String, Integer> resources) {
    return with(instanceType, resources);
  }

  private ClusterNode with(String type, java.util.Map<String, Integer> resources) {
    return new ClusterNode(
        name,
        providerId,
        instanceId,
        type,
        zone,
        capacityTypeLabel,
        nodePool,
        nodeGroup,
        createdAt,
        accelerators,
        acceleratorResource,
        cpuMillis,
        memoryBytes,
        resources,
        gpuLabels);
  }

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

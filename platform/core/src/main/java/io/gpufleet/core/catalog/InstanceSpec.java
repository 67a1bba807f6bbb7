package io.gpufleet.core.catalog;

/**
 * What a report needs to know about an instance type: vCPUs (what EC2 quotas count), memory and its
 * accelerators (GPUs, or Trainium/Inferentia/Gaudi devices; 0 for none).
 */
public record InstanceSpec(
    String instanceType,
    int vcpus,
    long memoryMib,
    int accelerators,
    String acceleratorModel,
    long acceleratorMemoryMib) {

  public String family() {
    return InstanceCatalog.family(instanceType);
  }

  public QuotaBucket bucket() {
    return InstanceCatalog.bucketOf(instanceType);
  }

  /** vCPUs per accelerator (0 when the type has none). */
  public double vcpusPerAccelerator() {
    return accelerators == 0 ? 0 : (double) vcpus / accelerators;
  }
}

package io.gpufleet.core.catalog;

import java.util.Optional;

/**
 * One row of the generated instance catalog: the hardware facts of an instance type as
 * DescribeInstanceTypes reports them, its quota bucket and, when one is sourced, its static
 * On-Demand price.
 *
 * @param memoryMib host memory (MemoryInfo.SizeInMiB)
 * @param accelerators devices Kubernetes sees (for fractional GPUs: the logical count, 1)
 * @param acceleratorMemoryMib memory of one device (of the slice, for fractional GPUs)
 * @param gpuPartition the share of a physical GPU one device is (1 except g6f/gr6f: 1/8..1/2)
 * @param origin where the facts come from
 * @param price the static price, or null when none is sourced
 */
public record CatalogEntry(
    String instanceType,
    int vcpus,
    long memoryMib,
    QuotaBucket bucket,
    AcceleratorKind kind,
    int accelerators,
    String acceleratorModel,
    long acceleratorMemoryMib,
    double gpuPartition,
    Origin origin,
    StaticPrice price) {

  /** Where a row's hardware facts come from. */
  public enum Origin {
    /** The pinned DescribeInstanceTypes dump, as is. */
    DUMP,
    /** The dump, with a value corrected in scripts/catalog/overrides.tsv (reason stated there). */
    DUMP_CORRECTED,
    /** Not in the dump: scripts/catalog/supplement.tsv, each row with its source. */
    SUPPLEMENT
  }

  public String family() {
    return InstanceCatalog.family(instanceType);
  }

  public boolean accelerated() {
    return kind != AcceleratorKind.NONE;
  }

  public Optional<StaticPrice> staticPrice() {
    return Optional.ofNullable(price);
  }

  /** The device plugin's extended resource ("nvidia.com/gpu"), when known. */
  public Optional<String> acceleratorResource() {
    return kind.resource();
  }

  /** The shape preflight and the simulator use. */
  public InstanceSpec spec() {
    return new InstanceSpec(
        instanceType,
        vcpus,
        memoryMib,
        accelerators,
        acceleratorModel == null ? "" : acceleratorModel,
        acceleratorMemoryMib);
  }
}

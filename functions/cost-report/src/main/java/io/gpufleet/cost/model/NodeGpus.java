package io.gpufleet.cost.model;

import java.util.List;
import java.util.Map;

/**
 * A node's GPUs on one physical truth: {@code physical} GPUs (from the instance catalog), what the
 * device plugin and DRA drivers advertise ({@code advertised}: resource → count), how they are
 * shared ({@code sharing}: none, time-slicing, mps, mig-single, mig-mixed, dra; with replicas where
 * it applies), the physical GPUs the advertised units add up to ({@code advertisedPhysical}) and
 * what is wrong ({@code flags}: e.g. a GPU instance with 0 allocatable GPUs). {@code migScale} (≤
 * 1) scales MIG slices so that a mixed layout, whose profiles block more than a GPU's worth each by
 * their own share, adds up to the node's physical GPUs.
 */
public record NodeGpus(
    int physical,
    Map<String, Integer> advertised,
    String sharing,
    int replicas,
    double advertisedPhysical,
    boolean zeroAllocatable,
    List<String> flags,
    double migScale) {

  public NodeGpus {
    advertised = advertised == null ? Map.of() : Map.copyOf(advertised);
    flags = flags == null ? List.of() : List.copyOf(flags);
  }

  /** "nvidia.com/mig-3g.40gb: 16, nvidia.com/mig-1g.10gb: 14" (sorted), or "-". */
  public String advertisedText() {
    if (advertised.isEmpty()) {
      return "-";
    }
    var sb = new StringBuilder();
    new java.util.TreeMap<>(advertised)
        .forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ", ").append(k).append(": ").append(v));
    return sb.toString();
  }
}

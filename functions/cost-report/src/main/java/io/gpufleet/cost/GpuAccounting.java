package io.gpufleet.cost;

import io.gpufleet.core.catalog.AcceleratorKind;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.MigProfiles;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.NodeGpus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * Pure: counts GPUs on one physical truth. A node has the GPUs its instance type has (the catalog);
 * what the device plugin advertises is converted back to physical GPUs:
 *
 * <ul>
 *   <li>time-slicing and MPS: {@code nvidia.com/gpu} (or {@code nvidia.com/gpu.shared}) is physical
 *       × replicas, so one unit is 1/replicas of a GPU. Replicas come from the node's {@code
 *       nvidia.com/gpu.replicas} label, else from the configured replicas of the node's {@code
 *       nvidia.com/device-plugin.config}, else from advertised ÷ physical;
 *   <li>MIG, mixed strategy: each {@code nvidia.com/mig-<g>g.<mem>gb} unit is its profile's
 *       fraction of a GPU ({@link MigProfiles}), divided by {@code
 *       nvidia.com/mig-<profile>.replicas} when the MIG devices are time-sliced too;
 *   <li>MIG, single strategy: {@code nvidia.com/gpu} units are MIG devices of the profile in {@code
 *       nvidia.com/gpu.product};
 *   <li>DRA: a device allocated from a ResourceSlice is a whole GPU, or its MIG profile's fraction.
 * </ul>
 *
 * Neuron devices keep their own unit (a device; NeuronCores converted per device).
 */
public final class GpuAccounting {
  static final String SHARED = "nvidia.com/gpu.shared";
  static final String GPU = "nvidia.com/gpu";
  static final String MIG = "nvidia.com/mig-";

  private GpuAccounting() {}

  /**
   * The node's GPUs. {@code configuredReplicas} maps a device-plugin config name (the value of the
   * node's {@code nvidia.com/device-plugin.config} label) to its time-slicing/MPS replicas.
   */
  public static NodeGpus node(ClusterNode n, Map<String, Integer> configuredReplicas) {
    var labels = n.gpuLabels();
    var advertised = new LinkedHashMap<String, Integer>();
    n.gpuResources().forEach((k, v) -> advertised.put(k, v));
    int catalog =
        InstanceCatalog.entry(n.instanceType())
            .filter(e -> e.kind() == AcceleratorKind.NVIDIA_GPU)
            .map(e -> e.accelerators())
            .orElse(-1);
    var flags = new ArrayList<String>();
    String migStrategy = labels.getOrDefault("nvidia.com/mig.strategy", "none");
    String strategy = labels.get("nvidia.com/gpu.sharing-strategy");
    int replicas = replicas(n, configuredReplicas, advertised, catalog, migStrategy);
    int physical;
    if (catalog >= 0) {
      physical = catalog;
    } else if (labels.containsKey("nvidia.com/gpu.count") && !"single".equals(migStrategy)) {
      physical = parseInt(labels.get("nvidia.com/gpu.count"), 0);
    } else {
      int gpus = advertised.getOrDefault(GPU, 0) + advertised.getOrDefault(SHARED, 0);
      physical = replicas > 1 ? gpus / replicas : gpus;
      physical = Math.max(physical, advertised.getOrDefault(ClusterNode.DRA_GPU, 0));
    }
    double physicalOfAdvertised = 0;
    double migPart = 0;
    for (var e : advertised.entrySet()) {
      double part = e.getValue() * unit(e.getKey(), n, replicas, 1.0, flags);
      physicalOfAdvertised += part;
      if (isMig(e.getKey(), labels)) {
        migPart += part;
      }
    }
    // a mixed MIG layout blocks more than its GPUs by each profile's own share: scale the slices
    // back so that together they are the node's physical GPUs
    double migScale = 1;
    double nonMig = physicalOfAdvertised - migPart;
    if (migPart > 0 && physical > 0 && physicalOfAdvertised > physical + 1e-9) {
      migScale = Math.max(0, physical - nonMig) / migPart;
      physicalOfAdvertised = nonMig + migPart * migScale;
    }
    boolean mig = advertised.keySet().stream().anyMatch(k -> k.startsWith(MIG));
    boolean dra = advertised.keySet().stream().anyMatch(k -> k.startsWith("dra:"));
    String sharing;
    if ("single".equals(migStrategy)) {
      sharing = "mig-single";
    } else if (mig) {
      sharing = "mig-mixed";
    } else if (replicas > 1) {
      sharing = "mps".equals(strategy) ? "mps" : "time-slicing";
    } else if (dra) {
      sharing = "dra";
    } else {
      sharing = "none";
    }
    if (mig
        && labels.keySet().stream()
            .anyMatch(
                k ->
                    k.startsWith(MIG)
                        && k.endsWith(".replicas")
                        && parseInt(labels.get(k), 1) > 1)) {
      sharing = sharing + "+time-slicing";
    }
    if (dra && !"dra".equals(sharing)) {
      sharing = sharing + "+dra";
    }
    boolean zero = physical > 0 && physicalOfAdvertised <= 0 && isNvidia(n);
    if (zero) {
      flags.add(
          "GPU instance with 0 allocatable GPUs ("
              + physical
              + " physical): device plugin or DRA driver not running, or GPUs unhealthy; all its"
              + " GPU cost is idle");
    } else if (physical > 0 && physicalOfAdvertised > physical + 1e-6) {
      flags.add(
          String.format(
              java.util.Locale.ROOT,
              "advertises %.2f GPUs' worth for %d physical: sharing replicas unknown?",
              physicalOfAdvertised,
              physical));
    }
    return new NodeGpus(
        physical,
        advertised,
        sharing,
        replicas,
        Math.round(physicalOfAdvertised * 1000) / 1000.0,
        zero,
        flags,
        migScale);
  }

  private static boolean isMig(String resource, Map<String, String> labels) {
    return resource.startsWith(MIG)
        || resource.startsWith(ClusterNode.DRA_MIG)
        || (resource.equals(GPU) || resource.equals(SHARED))
            && "single".equals(labels.get("nvidia.com/mig.strategy"));
  }

  /**
   * A pod's GPU requests (resource → quantity, as the k8s adapter maps them, DRA devices included)
   * in physical GPUs of its node.
   */
  public static double physicalGpus(Map<String, Double> requests, ClusterNode n, NodeGpus g) {
    double total = 0;
    for (var e : requests.entrySet()) {
      String k = e.getKey();
      if (k.startsWith("nvidia.com/") || k.startsWith("dra:")) {
        total += e.getValue() * unit(k, n, g.replicas(), g.migScale(), null);
      }
    }
    return total;
  }

  /** Physical GPUs in one advertised unit of a resource on this node. */
  static double unit(
      String resource, ClusterNode n, int replicas, double migScale, List<String> flags) {
    var labels = n.gpuLabels();
    if (resource.equals(ClusterNode.DRA_GPU)) {
      return 1;
    }
    if (resource.startsWith(ClusterNode.DRA_MIG)) {
      return migFraction(n, resource, flags) * migScale;
    }
    if (resource.equals(GPU) || resource.equals(SHARED)) {
      if ("single".equals(labels.get("nvidia.com/mig.strategy"))) {
        return migFraction(n, labels.getOrDefault("nvidia.com/gpu.product", ""), flags)
            * migScale
            / Math.max(1, replicas);
      }
      return 1.0 / Math.max(1, replicas);
    }
    if (resource.startsWith(MIG)) {
      String base =
          resource.endsWith(".shared") ? resource.substring(0, resource.length() - 7) : resource;
      int migReplicas = parseInt(labels.get(base + ".replicas"), 1);
      return migFraction(n, resource, flags) * migScale / Math.max(1, migReplicas);
    }
    return 0;
  }

  private static double migFraction(ClusterNode n, String text, List<String> flags) {
    OptionalDouble f = MigProfiles.fraction(n.instanceType(), text);
    if (f.isPresent()) {
      return f.getAsDouble();
    }
    // a profile the catalog does not know for this GPU: g/7, the compute share, as a floor
    var p = MigProfiles.profileIn(text);
    if (flags != null) {
      flags.add(
          "MIG profile "
              + p.orElse(text)
              + " unknown for "
              + n.instanceType()
              + ": counted at its compute share (g/7)");
    }
    return p.map(x -> (x.charAt(0) - '0') / 7.0).orElse(0.0);
  }

  private static int replicas(
      ClusterNode n,
      Map<String, Integer> configured,
      Map<String, Integer> advertised,
      int catalog,
      String migStrategy) {
    var labels = n.gpuLabels();
    int fromLabel = parseInt(labels.get("nvidia.com/gpu.replicas"), 0);
    if (fromLabel > 0) {
      return fromLabel;
    }
    String config = labels.get("nvidia.com/device-plugin.config");
    if (config != null && configured.containsKey(config)) {
      return configured.get(config);
    }
    // no label and no config: an nvidia.com/gpu count that is a whole multiple of the physical
    // GPUs is the only evidence left
    int gpus = advertised.getOrDefault(GPU, 0) + advertised.getOrDefault(SHARED, 0);
    if (catalog > 0 && gpus > catalog && gpus % catalog == 0 && !"single".equals(migStrategy)) {
      return gpus / catalog;
    }
    return 1;
  }

  private static boolean isNvidia(ClusterNode n) {
    return InstanceCatalog.kindOf(n.instanceType()) == AcceleratorKind.NVIDIA_GPU;
  }

  private static int parseInt(String s, int dflt) {
    if (s == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      return dflt;
    }
  }
}

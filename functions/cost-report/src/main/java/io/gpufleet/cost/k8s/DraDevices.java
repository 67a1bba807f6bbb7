package io.gpufleet.cost.k8s;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.gpufleet.core.catalog.MigProfiles;
import io.gpufleet.cost.model.ClusterNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Pure: GPUs that DRA drivers publish (ResourceSlices, resource.k8s.io/v1) and allocate
 * (ResourceClaim {@code status.allocation.devices.results}), in the report's resource keys: {@link
 * ClusterNode#DRA_GPU} for a whole GPU, {@code dra:mig-<profile>} for a MIG device. A device is a
 * GPU of the NVIDIA driver ({@code gpu.nvidia.com}) by its {@code type} attribute ({@code gpu} or
 * {@code mig}, with {@code profile}); a device missing from the slices read is recognised by the
 * driver's naming ({@code gpu-<minor>}, {@code gpu-<minor>-mig-<profile without dots>-...}). A
 * claim's devices are shared equally by the pods it is reserved for; admin-access allocations
 * (monitoring) consume nothing.
 */
public final class DraDevices {
  public static final String NVIDIA_DRIVER = "gpu.nvidia.com";
  private static final Pattern GPU_NAME = Pattern.compile("gpu-\\d+");
  private static final Pattern MIG_NAME = Pattern.compile("gpu-\\d+-mig-(\\d)g(\\d+)gb(-.*)?");

  private DraDevices() {}

  /** driver/pool/device → the report key of that device. */
  public static Map<String, String> index(List<ResourceSlice> slices) {
    var out = new HashMap<String, String>();
    for (var s : slices) {
      var spec = s.getSpec();
      if (spec == null || spec.getDevices() == null || spec.getPool() == null) {
        continue;
      }
      for (Device d : spec.getDevices()) {
        key(spec.getDriver(), d)
            .ifPresent(
                k ->
                    out.put(
                        spec.getDriver() + "/" + spec.getPool().getName() + "/" + d.getName(), k));
      }
    }
    return out;
  }

  /**
   * Node name → GPUs its slices publish. Whole GPUs when the driver publishes any (MIG devices of
   * partitionable GPUs overlap them), else the MIG devices.
   */
  public static Map<String, Map<String, Integer>> advertised(List<ResourceSlice> slices) {
    var whole = new HashMap<String, Map<String, Integer>>();
    var mig = new HashMap<String, Map<String, Integer>>();
    for (var s : slices) {
      var spec = s.getSpec();
      if (spec == null || spec.getNodeName() == null || spec.getDevices() == null) {
        continue;
      }
      for (Device d : spec.getDevices()) {
        key(spec.getDriver(), d)
            .ifPresent(
                k ->
                    (k.equals(ClusterNode.DRA_GPU) ? whole : mig)
                        .computeIfAbsent(spec.getNodeName(), x -> new TreeMap<>())
                        .merge(k, 1, Integer::sum));
      }
    }
    var out = new HashMap<String, Map<String, Integer>>(mig);
    out.putAll(whole);
    return out;
  }

  /**
   * Pod uid → GPUs allocated to it through claims. {@code claimOwners} maps "namespace/claim" to
   * the uids of pods that name the claim in {@code status.resourceClaimStatuses} or {@code
   * spec.resourceClaims} (used when the claim lists no consumer).
   */
  public static Map<String, Map<String, Double>> claimed(
      List<ResourceClaim> claims,
      Map<String, String> index,
      Map<String, List<String>> claimOwners) {
    var out = new HashMap<String, Map<String, Double>>();
    for (ResourceClaim c : claims) {
      var st = c.getStatus();
      if (st == null
          || st.getAllocation() == null
          || st.getAllocation().getDevices() == null
          || st.getAllocation().getDevices().getResults() == null) {
        continue;
      }
      List<String> consumers =
          st.getReservedFor() == null
              ? List.of()
              : st.getReservedFor().stream()
                  .filter(r -> "pods".equals(r.getResource()) && r.getUid() != null)
                  .map(r -> r.getUid())
                  .toList();
      if (consumers.isEmpty()) {
        consumers =
            claimOwners.getOrDefault(
                c.getMetadata().getNamespace() + "/" + c.getMetadata().getName(), List.of());
      }
      if (consumers.isEmpty()) {
        continue;
      }
      for (var r : st.getAllocation().getDevices().getResults()) {
        if (Boolean.TRUE.equals(r.getAdminAccess())) {
          continue;
        }
        String id = r.getDriver() + "/" + r.getPool() + "/" + r.getDevice();
        String k = index.get(id);
        if (k == null && NVIDIA_DRIVER.equals(r.getDriver())) {
          k = byName(r.getDevice()).orElse(null);
        }
        if (k == null) {
          continue;
        }
        double share = 1.0 / consumers.size();
        for (String uid : consumers) {
          out.computeIfAbsent(uid, x -> new TreeMap<>()).merge(k, share, Double::sum);
        }
      }
    }
    return out;
  }

  static Optional<String> key(String driver, Device d) {
    if (!NVIDIA_DRIVER.equals(driver)) {
      return Optional.empty();
    }
    String type = attr(d, driver, "type");
    if ("gpu".equals(type)) {
      return Optional.of(ClusterNode.DRA_GPU);
    }
    if ("mig".equals(type)) {
      var profile = MigProfiles.profileIn(attr(d, driver, "profile"));
      if (profile.isPresent()) {
        return Optional.of(ClusterNode.DRA_MIG + profile.get());
      }
    }
    return type == null ? byName(d.getName()) : Optional.empty();
  }

  static Optional<String> byName(String device) {
    if (device == null) {
      return Optional.empty();
    }
    if (GPU_NAME.matcher(device).matches()) {
      return Optional.of(ClusterNode.DRA_GPU);
    }
    var m = MIG_NAME.matcher(device);
    if (m.matches()) {
      return Optional.of(ClusterNode.DRA_MIG + m.group(1) + "g." + m.group(2) + "gb");
    }
    return Optional.empty();
  }

  private static String attr(Device d, String driver, String name) {
    Map<String, DeviceAttribute> a = d.getAttributes();
    if (a == null) {
      return null;
    }
    DeviceAttribute v = a.get(name);
    if (v == null) {
      v = a.get(driver + "/" + name);
    }
    return v == null ? null : v.getString();
  }
}

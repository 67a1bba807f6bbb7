package io.gpufleet.cost.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.gpufleet.cost.model.ClusterNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DraDevicesTest {
  static ResourceSlice slice(String node, String driver, String... typeAndProfile) {
    var b =
        new ResourceSliceBuilder()
            .withNewMetadata()
            .withName(node + "-" + driver)
            .endMetadata()
            .withNewSpec()
            .withDriver(driver)
            .withNodeName(node)
            .withNewPool()
            .withName(node)
            .withGeneration(1L)
            .withResourceSliceCount(1L)
            .endPool();
    for (int i = 0; i < typeAndProfile.length; i++) {
      String[] tp = typeAndProfile[i].split(":");
      var d = b.addNewDevice().withName(tp.length > 1 ? "gpu-0-mig-" + i : "gpu-" + i);
      d = d.addToAttributes("type", new DeviceAttributeBuilder().withString(tp[0]).build());
      if (tp.length > 1) {
        d = d.addToAttributes("profile", new DeviceAttributeBuilder().withString(tp[1]).build());
      }
      b = d.endDevice();
    }
    return b.endSpec().build();
  }

  static ResourceClaim claim(
      String name, List<String> devices, List<String> podUids, boolean admin) {
    var results =
        devices.stream()
            .map(
                d ->
                    new DeviceRequestAllocationResultBuilder()
                        .withRequest("r")
                        .withDriver("gpu.nvidia.com")
                        .withPool("n1")
                        .withDevice(d)
                        .withAdminAccess(admin ? true : null)
                        .build())
            .toList();
    var b =
        new ResourceClaimBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("ml")
            .endMetadata()
            .withNewStatus()
            .withNewAllocation()
            .withNewDevices()
            .withResults(results)
            .endDevices()
            .endAllocation();
    for (String uid : podUids) {
      b =
          b.addNewReservedFor()
              .withResource("pods")
              .withName("p-" + uid)
              .withUid(uid)
              .endReservedFor();
    }
    return b.endStatus().build();
  }

  @Test
  void shouldPublishWholeGpusPerNodeAndMigDevicesOnlyWhereThereAreNoWholeGpus() {
    var adv =
        DraDevices.advertised(
            List.of(
                slice("n1", "gpu.nvidia.com", "gpu", "gpu", "mig:3g.40gb"),
                slice("n2", "gpu.nvidia.com", "mig:1g.10gb", "mig:1g.10gb"),
                slice("n3", "compute-domain.nvidia.com", "gpu")));
    assertThat(adv.get("n1")).containsExactly(Map.entry(ClusterNode.DRA_GPU, 2));
    assertThat(adv.get("n2")).containsExactly(Map.entry(ClusterNode.DRA_MIG + "1g.10gb", 2));
    assertThat(adv).doesNotContainKey("n3");
  }

  @Test
  void shouldShareAClaimsDevicesEquallyBetweenItsPodsAndIgnoreAdminAccess() {
    var index =
        DraDevices.index(List.of(slice("n1", "gpu.nvidia.com", "gpu", "gpu", "gpu", "gpu")));
    var claimed =
        DraDevices.claimed(
            List.of(
                claim("shared", List.of("gpu-0", "gpu-1"), List.of("u1", "u2"), false),
                claim("monitor", List.of("gpu-2"), List.of("u3"), true),
                // not in any slice read: recognised by the NVIDIA driver's device naming
                claim("mig", List.of("gpu-3-mig-3g40gb-9-0"), List.of(), false)),
            index,
            Map.of("ml/mig", List.of("u4")));
    assertThat(claimed.get("u1")).containsExactly(Map.entry(ClusterNode.DRA_GPU, 1.0));
    assertThat(claimed.get("u2")).containsExactly(Map.entry(ClusterNode.DRA_GPU, 1.0));
    assertThat(claimed).doesNotContainKey("u3");
    assertThat(claimed.get("u4")).containsExactly(Map.entry(ClusterNode.DRA_MIG + "3g.40gb", 1.0));
  }
}

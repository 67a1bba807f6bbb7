package io.gpufleet.cost.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ResourceSlices and ResourceClaims as read untyped (see {@link CostClusterAdapter}), turned into
 * the typed objects {@link DraDevices} takes with exactly the fields it reads. Binding the whole
 * typed model instead would build deserializers for all of resource.k8s.io/v1, and a claim's opaque
 * driver parameters make fabric8 index every kind it knows: hundreds of classes on a fresh JVM for
 * a handful of fields. A field absent from the API object stays unset (null), as binding leaves it.
 */
final class DraObjects {
  private DraObjects() {}

  static ResourceSlice slice(GenericKubernetesResource r) {
    var slice = new ResourceSlice();
    slice.setMetadata(r.getMetadata());
    Object specValue = r.getAdditionalProperties().get("spec");
    if (specValue == null) {
      return slice;
    }
    var spec = Untyped.object(specValue);
    var out = new ResourceSliceSpec();
    out.setDriver(Untyped.text(spec.get("driver")));
    out.setNodeName(Untyped.text(spec.get("nodeName")));
    if (spec.get("pool") != null) {
      var pool = new ResourcePool();
      pool.setName(Untyped.text(Untyped.object(spec.get("pool")).get("name")));
      out.setPool(pool);
    }
    if (spec.get("devices") != null) {
      var devices = new ArrayList<Device>();
      for (var d : Untyped.objects(spec.get("devices"))) {
        var device = new Device();
        device.setName(Untyped.text(d.get("name")));
        if (d.get("attributes") != null) {
          var attributes = new LinkedHashMap<String, DeviceAttribute>();
          Untyped.object(d.get("attributes"))
              .forEach(
                  (k, v) -> {
                    var a = new DeviceAttribute();
                    a.setString(Untyped.text(Untyped.object(v).get("string")));
                    attributes.put(k, a);
                  });
          device.setAttributes(attributes);
        }
        devices.add(device);
      }
      out.setDevices(devices);
    }
    slice.setSpec(out);
    return slice;
  }

  static ResourceClaim claim(GenericKubernetesResource r) {
    var claim = new ResourceClaim();
    claim.setMetadata(r.getMetadata());
    Object statusValue = r.getAdditionalProperties().get("status");
    if (statusValue == null) {
      return claim;
    }
    var status = Untyped.object(statusValue);
    var out = new ResourceClaimStatus();
    if (status.get("reservedFor") != null) {
      var consumers = new ArrayList<ResourceClaimConsumerReference>();
      for (var c : Untyped.objects(status.get("reservedFor"))) {
        var ref = new ResourceClaimConsumerReference();
        ref.setResource(Untyped.text(c.get("resource")));
        ref.setUid(Untyped.text(c.get("uid")));
        ref.setName(Untyped.text(c.get("name")));
        consumers.add(ref);
      }
      out.setReservedFor(consumers);
    }
    Map<String, Object> allocation = Untyped.object(status.get("allocation"));
    if (status.get("allocation") != null) {
      var alloc = new AllocationResult();
      Map<String, Object> devices = Untyped.object(allocation.get("devices"));
      if (allocation.get("devices") != null) {
        var result = new DeviceAllocationResult();
        if (devices.get("results") != null) {
          result.setResults(results(Untyped.objects(devices.get("results"))));
        }
        alloc.setDevices(result);
      }
      out.setAllocation(alloc);
    }
    claim.setStatus(out);
    return claim;
  }

  private static List<DeviceRequestAllocationResult> results(List<Map<String, Object>> results) {
    var out = new ArrayList<DeviceRequestAllocationResult>(results.size());
    for (var r : results) {
      var result = new DeviceRequestAllocationResult();
      Object admin = r.get("adminAccess");
      result.setAdminAccess(admin == null ? null : Boolean.valueOf(admin.toString()));
      result.setDriver(Untyped.text(r.get("driver")));
      result.setPool(Untyped.text(r.get("pool")));
      result.setDevice(Untyped.text(r.get("device")));
      result.setRequest(Untyped.text(r.get("request")));
      out.add(result);
    }
    return out;
  }
}

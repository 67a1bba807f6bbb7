package io.gpufleet.drain.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpufleet.core.json.Json;
import io.gpufleet.drain.model.NodeChange;
import io.gpufleet.drain.model.NodeInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writing nodes: the one merge patch that taints, labels, cordons and marks a node, guarded by its
 * resourceVersion when the change says so; the patched node refreshes {@link NodeLookup}'s copy.
 */
final class NodePatches {
  private final KubernetesClient client;
  private final NodeLookup nodes;

  NodePatches(KubernetesClient client, NodeLookup nodes) {
    this.client = client;
    this.nodes = nodes;
  }

  /** False when the node changed (or went) since it was read: the caller re-reads. */
  boolean patchNode(NodeInfo node, NodeChange change) {
    var metadata = new LinkedHashMap<String, Object>();
    if (change.guarded()) {
      metadata.put("resourceVersion", node.resourceVersion());
    }
    if (!change.labels().isEmpty()) {
      metadata.put("labels", change.labels());
    }
    if (!change.annotations().isEmpty()) {
      metadata.put("annotations", change.annotations());
    }
    var spec = new LinkedHashMap<String, Object>();
    if (change.cordon()) {
      spec.put("unschedulable", true);
    }
    if (change.addTaint() != null) {
      // A merge patch replaces the list: send what is there plus ours (guarded by resourceVersion).
      var taints = new ArrayList<Map<String, String>>();
      for (var t : node.taints()) {
        taints.add(taint(t));
      }
      taints.add(taint(change.addTaint()));
      spec.put("taints", taints);
    }
    var patch = new LinkedHashMap<String, Object>();
    patch.put("metadata", metadata);
    if (!spec.isEmpty()) {
      patch.put("spec", spec);
    }
    try {
      // Node patches bypass the in-flight limit: a cordon must not queue behind other drains'
      // evictions.
      GenericKubernetesResource patched =
          client
              .genericKubernetesResources(KubeResources.NODES)
              .withName(node.name())
              .patch(PatchContext.of(PatchType.JSON_MERGE), Json.write(patch));
      nodes.patched(patched);
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409 || e.getCode() == 404) {
        // changed (or gone) since it was read: the caller re-reads
        return false;
      }
      throw KubeCalls.unavailable("patch node " + node.name(), e);
    }
  }

  private static Map<String, String> taint(NodeInfo.Taint t) {
    var m = new LinkedHashMap<String, String>();
    m.put("key", t.key());
    if (t.value() != null) {
      m.put("value", t.value());
    }
    m.put("effect", t.effect());
    return m;
  }
}

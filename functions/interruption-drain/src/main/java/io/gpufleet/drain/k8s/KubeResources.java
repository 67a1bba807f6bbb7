package io.gpufleet.drain.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import java.util.List;
import java.util.Map;

/**
 * Nodes and pods are read as generic resources (maps) and mapped field by field: the typed Node/Pod
 * models cost a cold JVM hundreds of milliseconds of deserializer construction for the handful of
 * fields the drain uses.
 */
final class KubeResources {
  static final ResourceDefinitionContext NODES =
      new ResourceDefinitionContext.Builder()
          .withGroup("")
          .withVersion("v1")
          .withKind("Node")
          .withPlural("nodes")
          .withNamespaced(false)
          .build();

  static final ResourceDefinitionContext PODS =
      new ResourceDefinitionContext.Builder()
          .withGroup("")
          .withVersion("v1")
          .withKind("Pod")
          .withPlural("pods")
          .withNamespaced(true)
          .build();

  private KubeResources() {}

  static NodeInfo toNode(GenericKubernetesResource n) {
    Map<String, Object> spec = map(n.getAdditionalProperties().get("spec"));
    List<NodeInfo.Taint> taints =
        spec == null || !(spec.get("taints") instanceof List<?> list)
            ? List.of()
            : list.stream().map(t -> toTaint(map(t))).toList();
    return new NodeInfo(
        n.getMetadata().getName(),
        spec == null ? null : string(spec.get("providerID")),
        n.getMetadata().getResourceVersion(),
        spec != null && Boolean.TRUE.equals(spec.get("unschedulable")),
        taints,
        n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels(),
        n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations());
  }

  static String providerId(GenericKubernetesResource n) {
    Map<String, Object> spec = map(n.getAdditionalProperties().get("spec"));
    return spec == null ? null : string(spec.get("providerID"));
  }

  private static NodeInfo.Taint toTaint(Map<String, Object> t) {
    return new NodeInfo.Taint(
        string(t.get("key")), string(t.get("value")), string(t.get("effect")));
  }

  static PodInfo toPod(GenericKubernetesResource p) {
    ObjectMeta meta = p.getMetadata();
    List<OwnerReference> owners =
        meta.getOwnerReferences() == null ? List.of() : meta.getOwnerReferences();
    String ownerKind =
        owners.stream()
            .filter(o -> Boolean.TRUE.equals(o.getController()))
            .map(OwnerReference::getKind)
            .findFirst()
            .orElse(owners.isEmpty() ? null : owners.get(0).getKind());
    boolean mirror =
        meta.getAnnotations() != null
            && meta.getAnnotations().containsKey("kubernetes.io/config.mirror");
    Map<String, Object> spec = map(p.getAdditionalProperties().get("spec"));
    Map<String, Object> status = map(p.getAdditionalProperties().get("status"));
    return new PodInfo(
        meta.getNamespace(),
        meta.getName(),
        meta.getUid(),
        status == null ? null : string(status.get("phase")),
        ownerKind,
        mirror,
        meta.getDeletionTimestamp() != null,
        spec == null ? null : string(spec.get("priorityClassName")),
        spec == null || !(spec.get("priority") instanceof Number n) ? null : n.intValue(),
        spec == null || !(spec.get("terminationGracePeriodSeconds") instanceof Number n)
            ? null
            : n.longValue(),
        meta.getLabels() == null ? Map.of() : meta.getLabels(),
        meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
  }

  static String string(Object value) {
    return value == null ? null : value.toString();
  }
}

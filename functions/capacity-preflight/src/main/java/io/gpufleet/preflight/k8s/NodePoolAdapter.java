package io.gpufleet.preflight.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.preflight.NodePoolPort;
import io.gpufleet.preflight.model.NodePoolSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads karpenter.sh/v1 NodePools as generic resources (no Karpenter model classes needed) and
 * keeps what bounds what a pool launches: {@code spec.limits} and {@code
 * spec.template.spec.requirements}.
 */
public final class NodePoolAdapter implements NodePoolPort {
  public static final String API_VERSION = "karpenter.sh/v1";
  public static final String KIND = "NodePool";
  // Named in full so the client needs no API discovery call (and the RBAC for it).
  static final ResourceDefinitionContext NODE_POOLS =
      new ResourceDefinitionContext.Builder()
          .withGroup("karpenter.sh")
          .withVersion("v1")
          .withKind(KIND)
          .withPlural("nodepools")
          .withNamespaced(false)
          .build();
  private final KubernetesClient client;

  public NodePoolAdapter(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public List<NodePoolSpec> nodePools() {
    var out = new ArrayList<NodePoolSpec>();
    for (GenericKubernetesResource r :
        client.genericKubernetesResources(NODE_POOLS).list().getItems()) {
      out.add(toSpec(r));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  public static NodePoolSpec toSpec(GenericKubernetesResource r) {
    Map<String, Object> spec = map(r.getAdditionalProperties().get("spec"));
    var limits = new LinkedHashMap<String, String>();
    map(spec.get("limits")).forEach((k, v) -> limits.put(k, String.valueOf(v)));
    var requirements = new ArrayList<NodePoolSpec.Requirement>();
    Object reqs = map(map(spec.get("template")).get("spec")).get("requirements");
    if (reqs instanceof List<?> list) {
      for (Object o : list) {
        Map<String, Object> m = map(o);
        var values = new ArrayList<String>();
        if (m.get("values") instanceof List<?> vs) {
          vs.forEach(v -> values.add(String.valueOf(v)));
        }
        requirements.add(
            new NodePoolSpec.Requirement(
                String.valueOf(m.get("key")),
                String.valueOf(m.get("operator")),
                List.copyOf(values)));
      }
    }
    Map<String, Object> disruption = map(spec.get("disruption"));
    Map<String, Object> templateSpec = map(map(spec.get("template")).get("spec"));
    Object group = map(templateSpec.get("nodeClassRef")).get("group");
    Map<String, String> labels =
        r.getMetadata().getLabels() == null ? Map.of() : Map.copyOf(r.getMetadata().getLabels());
    Map<String, String> annotations =
        r.getMetadata().getAnnotations() == null
            ? Map.of()
            : Map.copyOf(r.getMetadata().getAnnotations());
    return new NodePoolSpec(
        r.getMetadata().getName(),
        Map.copyOf(limits),
        List.copyOf(requirements),
        labels,
        annotations,
        text(disruption.get("consolidationPolicy")),
        text(disruption.get("consolidateAfter")),
        text(group));
  }

  private static String text(Object o) {
    return o == null ? null : String.valueOf(o);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }
}

package io.gpufleet.schedule.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.core.catalog.AcceleratorKind;
import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.Planner;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.PodTemplate;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A generic resource as the planner sees it: identity, labels, annotations, age and the managed
 * fields of its kind; for Deployments and StatefulSets what one replica asks for.
 */
final class TargetStates {
  /** The device plugins' resources a replica's accelerators are requested as. */
  static final Set<String> ACCELERATORS =
      java.util.Arrays.stream(AcceleratorKind.values())
          .flatMap(k -> k.resource().stream())
          .collect(java.util.stream.Collectors.toUnmodifiableSet());

  private TargetStates() {}

  static TargetState toNodePool(GenericKubernetesResource r) {
    JsonNode spec = Json.MAPPER.valueToTree(r.getAdditionalProperties().get("spec"));
    ObjectNode fields = Json.MAPPER.createObjectNode();
    JsonNode disruption = spec == null ? null : spec.path("disruption");
    if (disruption != null && disruption.has("budgets")) {
      fields.set("budgets", disruption.get("budgets"));
    }
    if (disruption != null && disruption.hasNonNull("consolidateAfter")) {
      fields.set("consolidateAfter", disruption.get("consolidateAfter"));
    }
    return new TargetState(
        ref(r, ScheduleKinds.NODEPOOLS),
        null,
        labels(r),
        annotations(r),
        created(r),
        fields,
        null,
        null,
        null,
        null);
  }

  static TargetState toWorkload(GenericKubernetesResource r, WorkloadKind kind) {
    JsonNode spec = Json.MAPPER.valueToTree(r.getAdditionalProperties().get("spec"));
    if (spec == null) {
      spec = Json.MAPPER.createObjectNode();
    }
    ObjectNode fields = Json.MAPPER.createObjectNode();
    Integer max = null;
    String targetKind = null;
    String targetName = null;
    String controlledBy = null;
    PodTemplate pods = null;
    ResourceDefinitionContext ctx;
    switch (kind) {
      case DEPLOYMENT, STATEFULSET -> {
        ctx =
            kind == WorkloadKind.DEPLOYMENT
                ? ScheduleKinds.DEPLOYMENTS
                : ScheduleKinds.STATEFULSETS;
        fields.put("replicas", spec.path("replicas").asInt(1));
        pods = podTemplate(spec.path("template"));
      }
      case HPA -> {
        ctx = ScheduleKinds.HPAS;
        fields.put("minReplicas", spec.path("minReplicas").asInt(1));
        max = spec.has("maxReplicas") ? spec.get("maxReplicas").asInt() : null;
        targetKind = spec.path("scaleTargetRef").path("kind").asText(null);
        targetName = spec.path("scaleTargetRef").path("name").asText(null);
        List<OwnerReference> owners = r.getMetadata().getOwnerReferences();
        if (owners != null) {
          controlledBy =
              owners.stream()
                  .filter(o -> "ScaledObject".equals(o.getKind()))
                  .map(o -> "ScaledObject " + o.getName())
                  .findFirst()
                  .orElse(null);
        }
      }
      case SCALED_OBJECT -> {
        ctx = ScheduleKinds.SCALEDOBJECTS;
        String paused = annotations(r).get(Planner.KEDA_PAUSED);
        if (paused != null) {
          fields.put("pausedReplicas", paused);
        }
        targetKind = spec.path("scaleTargetRef").path("kind").asText("Deployment");
        targetName = spec.path("scaleTargetRef").path("name").asText(null);
      }
      default -> throw new IllegalArgumentException(kind.toString());
    }
    return new TargetState(
        ref(r, ctx),
        kind,
        labels(r),
        annotations(r),
        created(r),
        fields,
        max,
        targetKind,
        targetName,
        controlledBy,
        pods);
  }

  /** One replica's accelerators and labels, from a pod template. */
  static PodTemplate podTemplate(JsonNode template) {
    JsonNode spec = template.path("spec");
    int sum = 0;
    for (JsonNode c : spec.path("containers")) {
      sum += accelerators(c);
    }
    int init = 0;
    for (JsonNode c : spec.path("initContainers")) {
      init = Math.max(init, accelerators(c));
    }
    var labels = new java.util.LinkedHashMap<String, String>();
    template
        .path("metadata")
        .path("labels")
        .properties()
        .forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
    return new PodTemplate(Math.max(sum, init), labels);
  }

  private static int accelerators(JsonNode container) {
    int n = 0;
    JsonNode resources = container.path("resources");
    for (String r : ACCELERATORS) {
      JsonNode q = resources.path("requests").path(r);
      if (q.isMissingNode()) {
        q = resources.path("limits").path(r);
      }
      // extended resources are whole numbers; anything else asks for no device
      if (q.isInt() || (q.isTextual() && q.asText().matches("\\d{1,4}"))) {
        n += q.asInt();
      }
    }
    return n;
  }

  private static ObjectRef ref(GenericKubernetesResource r, ResourceDefinitionContext ctx) {
    var m = r.getMetadata();
    return new ObjectRef(
        ctx.getGroup() + "/" + ctx.getVersion(),
        ctx.getKind(),
        ctx.isNamespaceScoped() ? m.getNamespace() : null,
        m.getName(),
        m.getUid(),
        m.getResourceVersion(),
        m.getGeneration());
  }

  private static Map<String, String> labels(GenericKubernetesResource r) {
    return r.getMetadata().getLabels() == null ? Map.of() : r.getMetadata().getLabels();
  }

  private static Map<String, String> annotations(GenericKubernetesResource r) {
    return r.getMetadata().getAnnotations() == null ? Map.of() : r.getMetadata().getAnnotations();
  }

  private static Instant created(GenericKubernetesResource r) {
    String t = r.getMetadata().getCreationTimestamp();
    try {
      return t == null ? null : Instant.parse(t);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }
}

package io.gpufleet.schedule.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.Planner;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.model.Write;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The schedule's memory of the Deployments and StatefulSets it scaled, kept in the ConfigMap
 * {@value #STATE_CONFIGMAP} of their namespace (they are only ever written through the scale
 * subresource, which carries no annotations). One key per workload, {@code <Kind>.<name>}, whose
 * value is {@code {"original":{"replicas":N},"applied":{"window":W,"fields":{"replicas":M}},
 * "generation":G}}: the same documents the other kinds keep in their {@link Planner#ORIGINAL} and
 * {@link Planner#APPLIED} annotations, plus the object's generation when the schedule read it.
 *
 * <p>Reading presents an entry to the planner as those two annotations, so the decision (apply,
 * restore, hold, release) is the same for every kind. One exception: an entry whose object still
 * has the generation it was read at, and whose replicas are not what was applied, records a scale
 * that never landed (the state was written, the scale then failed); it is ignored, so the next run
 * plans the change again from the object as it is.
 */
public final class ReplicaState {
  public static final Set<String> KINDS = Set.of("Deployment", "StatefulSet");

  /** The ConfigMap, one per namespace, that remembers replica counts the schedule changed. */
  public static final String STATE_CONFIGMAP = "gpufleet-schedule";

  private ReplicaState() {}

  /** The ConfigMap key of a workload. */
  public static String key(ObjectRef ref) {
    return ref.kind() + "." + ref.name();
  }

  /** The entry an applying write stores: its bookkeeping annotations plus the read generation. */
  static String entry(Write w) {
    ObjectNode entry = Json.MAPPER.createObjectNode();
    entry.set("original", read(w.annotations().get(Planner.ORIGINAL)));
    entry.set("applied", read(w.annotations().get(Planner.APPLIED)));
    if (w.ref().generation() != null) {
      entry.put("generation", w.ref().generation());
    }
    return Json.write(entry);
  }

  static ConfigMap newConfigMap(String namespace, String key, String entry) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(STATE_CONFIGMAP)
        .withNamespace(namespace)
        .addToLabels("app.kubernetes.io/managed-by", "gpufleet-disruption-schedule")
        .addToAnnotations(
            "gpufleet.io/description",
            "Replica counts the GPU Fleet Ops disruption schedule changed and will restore"
                + " (<Kind>.<name>: original, applied, generation). Removing a key makes the"
                + " schedule forget that workload.")
        .endMetadata()
        .addToData(key, entry)
        .build();
  }

  /**
   * A Deployment or StatefulSet as the planner sees it: bookkeeping annotations from the state
   * entry (never from the object, whose own annotations gpufleet no longer writes); other kinds
   * unchanged.
   */
  public static TargetState merge(TargetState w, Map<String, Map<String, String>> byNamespace) {
    if (!KINDS.contains(w.ref().kind())) {
      return w;
    }
    var annotations = new LinkedHashMap<>(w.annotations() == null ? Map.of() : w.annotations());
    annotations.remove(Planner.ORIGINAL);
    annotations.remove(Planner.APPLIED);
    String text = byNamespace.getOrDefault(w.ref().namespace(), Map.of()).get(key(w.ref()));
    if (text != null) {
      JsonNode entry = read(text);
      JsonNode applied = entry.path("applied");
      boolean neverLanded =
          entry.has("generation")
              && w.ref().generation() != null
              && entry.get("generation").asLong() == w.ref().generation()
              && !applied.path("fields").equals(w.fields());
      if (!neverLanded) {
        // unreadable parts stay unreadable: the planner reports them and leaves the object alone
        annotations.put(
            Planner.ORIGINAL, entry.has("original") ? Json.write(entry.get("original")) : text);
        annotations.put(Planner.APPLIED, entry.has("applied") ? Json.write(applied) : "unreadable");
      }
    }
    return new TargetState(
        w.ref(),
        w.workloadKind(),
        w.labels(),
        Map.copyOf(annotations),
        w.created(),
        w.fields(),
        w.maxReplicas(),
        w.scaleTargetKind(),
        w.scaleTargetName(),
        w.controlledBy(),
        w.pods());
  }

  private static JsonNode read(String text) {
    if (text == null) {
      return Json.MAPPER.nullNode();
    }
    try {
      return Json.MAPPER.readTree(text);
    } catch (IOException e) {
      return Json.MAPPER.getNodeFactory().textNode(text);
    }
  }
}

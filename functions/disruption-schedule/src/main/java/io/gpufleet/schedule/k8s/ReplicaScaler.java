package io.gpufleet.schedule.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.Write;

/**
 * Writes Deployments and StatefulSets, only through their {@code scale} subresource, and keeps
 * their bookkeeping in the namespace's {@value ReplicaState#STATE_CONFIGMAP} ConfigMap.
 *
 * <p>Why the scale subresource: a permission to patch the objects themselves is a permission to
 * change their pod template, i.e. to run any image as any service account in the namespace. {@code
 * deployments/scale} can change nothing but the replica count. The bookkeeping (original and
 * applied replicas) that lives in annotations on the other kinds therefore lives in that ConfigMap,
 * one key {@code <Kind>.<name>} per workload ({@link ReplicaState}), which the same namespaced
 * binding lets the schedule write. A replica change is two requests; their order keeps every
 * failure recoverable: on the way down the state is written first (a scale that then fails leaves
 * the object's generation where it was, which the next read recognises as "never landed" and plans
 * again), on the way back the replicas are restored first and the key removed afterwards.
 */
final class ReplicaScaler {
  private final KubernetesClient client;

  ReplicaScaler(KubernetesClient client) {
    this.client = client;
  }

  /** Remember (state first), then scale; or scale back, then forget. */
  void apply(Write w) {
    ObjectRef ref = w.ref();
    boolean remember = !w.annotations().isEmpty();
    if (remember) {
      patchState(ref, ReplicaState.entry(w));
    }
    if (w.fields().has("replicas")) {
      var scale =
          new io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder()
              .withNewMetadata()
              .withName(ref.name())
              .withNamespace(ref.namespace())
              .withUid(ref.uid())
              .withResourceVersion(ref.resourceVersion())
              .endMetadata()
              .withNewSpec()
              .withReplicas(w.fields().get("replicas").asInt())
              .endSpec()
              .build();
      // PUT .../<kind>/<name>/scale; the resourceVersion makes it conditional (409 if changed)
      if (ref.kind().equals("Deployment")) {
        client.apps().deployments().inNamespace(ref.namespace()).withName(ref.name()).scale(scale);
      } else {
        client.apps().statefulSets().inNamespace(ref.namespace()).withName(ref.name()).scale(scale);
      }
    }
    if (!remember) {
      patchState(ref, null);
    }
  }

  /**
   * Sets (or with null removes) the workload's key in its namespace's state ConfigMap with a JSON
   * merge patch, so concurrent writes of other keys never conflict; creates the ConfigMap when it
   * does not exist yet.
   */
  private void patchState(ObjectRef ref, String entry) {
    String key = ReplicaState.key(ref);
    var data = Json.MAPPER.createObjectNode();
    if (entry == null) {
      data.putNull(key);
    } else {
      data.put(key, entry);
    }
    var patch = Json.MAPPER.createObjectNode();
    patch.set("data", data);
    var stub =
        new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
            .withNewMetadata()
            .withName(ReplicaState.STATE_CONFIGMAP)
            .withNamespace(ref.namespace())
            .endMetadata()
            .build();
    var configMaps = client.configMaps().inNamespace(ref.namespace());
    for (int attempt = 0; ; attempt++) {
      try {
        configMaps.resource(stub).patch(PatchContext.of(PatchType.JSON_MERGE), Json.write(patch));
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404 || entry == null) {
          if (e.getCode() == 404) {
            return; // nothing to forget
          }
          throw e;
        }
      }
      try {
        configMaps.resource(ReplicaState.newConfigMap(ref.namespace(), key, entry)).create();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt > 0) {
          throw e;
        }
        // created concurrently by another write of this run: patch it
      }
    }
  }
}

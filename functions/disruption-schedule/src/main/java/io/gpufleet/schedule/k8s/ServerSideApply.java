package io.gpufleet.schedule.k8s;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.Planner;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.Write;

/**
 * Writes NodePools (disruption budgets, consolidateAfter), HPAs (minReplicas) and KEDA
 * ScaledObjects (the paused-replicas annotation) with server-side apply, field manager {@value
 * #FIELD_MANAGER}, force.
 *
 * <p>Why apply and not a merge patch: an apply names exactly the fields gpufleet manages, and a
 * later apply that leaves one out gives it up (the API server removes it only while gpufleet still
 * owns it). That is what restoring needs: a KEDA {@code paused-replicas} annotation that did not
 * exist before is removed by the restoring apply, while one that somebody else has since set (and
 * so owns) is kept. {@code force} takes over fields another manager set (the original replicas, a
 * pre-existing paused-replicas); the originals are in gpufleet's annotations. The object's uid and
 * resourceVersion travel in the apply as preconditions, so a change between the read and the write
 * is a 409 for this run and healed by the next, never overwritten blindly.
 */
final class ServerSideApply {
  static final String FIELD_MANAGER = "gpufleet";

  private static final PatchContext APPLY =
      new PatchContext.Builder()
          .withPatchType(PatchType.SERVER_SIDE_APPLY)
          .withFieldManager(FIELD_MANAGER)
          .withForce(true)
          .build();

  private final KubernetesClient client;

  ServerSideApply(KubernetesClient client) {
    this.client = client;
  }

  /** The apply document for a write: identity, preconditions, managed fields, bookkeeping. */
  static ObjectNode applyBody(Write w) {
    ObjectRef ref = w.ref();
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("apiVersion", ref.apiVersion()).put("kind", ref.kind());
    ObjectNode meta = body.putObject("metadata");
    meta.put("name", ref.name());
    if (ref.namespace() != null) {
      meta.put("namespace", ref.namespace());
    }
    if (ref.uid() != null) {
      meta.put("uid", ref.uid());
    }
    if (ref.resourceVersion() != null) {
      meta.put("resourceVersion", ref.resourceVersion());
    }
    ObjectNode annotations = Json.MAPPER.createObjectNode();
    w.annotations().forEach(annotations::put);
    ObjectNode f = w.fields();
    switch (ref.kind()) {
      case "NodePool" -> {
        if (f.has("budgets") || f.has("consolidateAfter")) {
          ObjectNode d = body.putObject("spec").putObject("disruption");
          if (f.has("budgets")) {
            d.set("budgets", f.get("budgets"));
          }
          if (f.has("consolidateAfter")) {
            d.set("consolidateAfter", f.get("consolidateAfter"));
          }
        }
      }
      case "Deployment", "StatefulSet" -> {
        if (f.has("replicas")) {
          body.putObject("spec").set("replicas", f.get("replicas"));
        }
      }
      case "HorizontalPodAutoscaler" -> {
        if (f.has("minReplicas")) {
          body.putObject("spec").set("minReplicas", f.get("minReplicas"));
        }
      }
      case "ScaledObject" -> {
        if (f.has("pausedReplicas")) {
          annotations.put(Planner.KEDA_PAUSED, f.get("pausedReplicas").asText());
        }
      }
      default -> throw new IllegalArgumentException("unexpected kind " + ref.kind());
    }
    if (!annotations.isEmpty()) {
      meta.set("annotations", annotations);
    }
    return body;
  }

  /** Applies the write's managed fields and bookkeeping annotations. */
  void apply(Write w) {
    ResourceDefinitionContext ctx = ScheduleKinds.of(w.ref().kind());
    String body = Json.write(applyBody(w));
    // resource(item) names the object without a read: withName(..).patch(..) would GET it first
    var item = new GenericKubernetesResource();
    item.setApiVersion(w.ref().apiVersion());
    item.setKind(w.ref().kind());
    item.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(w.ref().name())
            .withNamespace(w.ref().namespace())
            .build());
    if (ctx.isNamespaceScoped()) {
      client
          .genericKubernetesResources(ctx)
          .inNamespace(w.ref().namespace())
          .resource(item)
          .patch(APPLY, body);
    } else {
      client.genericKubernetesResources(ctx).resource(item).patch(APPLY, body);
    }
  }
}

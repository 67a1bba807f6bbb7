package io.gpufleet.schedule.k8s;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.KubeEvents;
import io.gpufleet.schedule.Planner;
import io.gpufleet.schedule.ScheduleClusterPort;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.model.Write;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import java.util.List;
import java.util.Map;

/**
 * {@link ScheduleClusterPort} over fabric8, reading every kind as a generic resource ({@link
 * ScheduleKinds}). Reads are {@link ClusterListing}'s (mapped by {@link TargetStates}); NodePools,
 * HPAs and ScaledObjects are written by {@link ServerSideApply}, Deployments and StatefulSets only
 * through their {@code scale} subresource by {@link ReplicaScaler}, with their memory in {@link
 * ReplicaState}. A write the API server refuses is one failure naming the object; a 409 (the object
 * changed since it was read) is retried by the next run.
 */
public final class ScheduleClusterAdapter implements ScheduleClusterPort {
  private final KubernetesClient client;
  private final java.time.Clock clock;
  private final ClusterListing listing;
  private final ServerSideApply applier;
  private final ReplicaScaler scaler;

  public ScheduleClusterAdapter(KubernetesClient client, java.time.Clock clock) {
    this.client = client;
    this.clock = clock;
    this.listing = new ClusterListing(client);
    this.applier = new ServerSideApply(client);
    this.scaler = new ReplicaScaler(client);
  }

  /**
   * Builds, without any request, what a run's reads and writes need from a JSON mapper: list
   * answers of every kind mapped to states, an apply body, an Event. SnapStart priming; no network,
   * credentials, tokens or clock.
   */
  public void prime() {
    prime(client.getKubernetesSerialization());
  }

  public static void prime(io.fabric8.kubernetes.client.utils.KubernetesSerialization json) {
    var list = json.unmarshal(SAMPLE_LIST, GenericKubernetesResourceList.class);
    var pool = TargetStates.toNodePool(list.getItems().get(0));
    for (WorkloadKind k : WorkloadKind.values()) {
      TargetStates.toWorkload(list.getItems().get(1), k);
    }
    var write =
        new Write(
            pool.ref(),
            Json.MAPPER.createObjectNode().put("consolidateAfter", "1m"),
            Map.of(Planner.ORIGINAL, "{}"));
    json.unmarshal(Json.write(ServerSideApply.applyBody(write)), GenericKubernetesResource.class);
    json.asJson(
        new EventBuilder()
            .withNewMetadata()
            .withName("prime")
            .withNamespace("default")
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder().withKind("NodePool").withName("p").build())
            .withType("Normal")
            .withReason("Prime")
            .withMessage("prime")
            .build());
  }

  private static final String SAMPLE_LIST =
      """
      {"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":"1","continue":""},"items":[
       {"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"p","uid":"u",
        "resourceVersion":"1","creationTimestamp":"1970-01-01T00:00:00Z","labels":{"a":"b"},
        "annotations":{"a":"b"}},"spec":{"disruption":{"consolidateAfter":"1m",
        "budgets":[{"nodes":"10%","reasons":["Empty"]}]}}},
       {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n","uid":"u",
        "resourceVersion":"1","creationTimestamp":"1970-01-01T00:00:00Z","labels":{"a":"b"},
        "annotations":{"autoscaling.keda.sh/paused-replicas":"0"},"ownerReferences":[{"apiVersion":
        "keda.sh/v1alpha1","kind":"ScaledObject","name":"s","uid":"u"}]},"spec":{"replicas":1,
        "minReplicas":1,"maxReplicas":2,"scaleTargetRef":{"kind":"Deployment","name":"d"}}}]}
      """;

  @Override
  public List<TargetState> nodePools() {
    return listing.nodePools();
  }

  @Override
  public List<TargetState> workloads() {
    return listing.workloads();
  }

  @Override
  public void apply(Write w) {
    try {
      if (ReplicaState.KINDS.contains(w.ref().kind())) {
        scaler.apply(w);
      } else {
        applier.apply(w);
      }
    } catch (KubernetesClientException e) {
      throw failure(w, e);
    }
  }

  private static IllegalStateException failure(Write w, KubernetesClientException e) {
    String msg =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : e.getMessage();
    if (e.getCode() == 409) {
      return new IllegalStateException(
          "HTTP 409: "
              + w.ref().display()
              + " changed while reconciling ("
              + msg
              + "); the next run retries",
          e);
    }
    return new IllegalStateException("HTTP " + e.getCode() + ": " + msg, e);
  }

  @Override
  public void recordEvent(ObjectRef ref, boolean warning, String reason, String message) {
    KubeEvents.record(
        client,
        clock.instant(),
        "gpufleet-disruption-schedule",
        ref.namespace() == null ? "default" : ref.namespace(),
        new ObjectReferenceBuilder()
            .withApiVersion(ref.apiVersion())
            .withKind(ref.kind())
            .withName(ref.name())
            .withNamespace(ref.namespace())
            .withUid(ref.uid())
            .build(),
        warning,
        reason,
        message);
  }
}

package io.gpufleet.drain.k8s;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PreconditionsBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Builds, without any request, what the first invocation's reads and writes need from a client's
 * JSON mapper: deserializers for node, pod, PodDisruptionBudget and Event answers and serializers
 * for evictions and events. No network, credentials, tokens, randomness or clock.
 */
final class ClientPriming {
  private ClientPriming() {}

  /**
   * Primes {@code json}: a client's own mapper, or the mapping every client shares ({@code
   * KubeClients.serialization()}), which the INIT warm-up thread primes while the main thread
   * builds the client.
   */
  static void prime(KubernetesSerialization json) {
    GenericKubernetesResourceList pods =
        json.unmarshal(SAMPLE_PODS, GenericKubernetesResourceList.class);
    pods.getItems().forEach(KubeResources::toPod);
    GenericKubernetesResourceList nodes =
        json.unmarshal(SAMPLE_NODES, GenericKubernetesResourceList.class);
    nodes.getItems().forEach(KubeResources::toNode);
    json.unmarshal(json.asJson(nodes.getItems().get(0)), GenericKubernetesResource.class);
    json.unmarshal(
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudgetList\",\"items\":[]}",
        io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetList.class);
    json.asJson(
        new EvictionBuilder()
            .withNewMetadata()
            .withName("prime")
            .withNamespace("prime")
            .endMetadata()
            .withDeleteOptions(
                new DeleteOptionsBuilder()
                    .withGracePeriodSeconds(0L)
                    .withPreconditions(new PreconditionsBuilder().withUid("prime").build())
                    .build())
            .build());
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withName("prime")
            .withNamespace("default")
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withKind("Node")
                    .withName("prime")
                    .withApiVersion("v1")
                    .build())
            .withType("Normal")
            .withReason("Prime")
            .withMessage("prime")
            .withNewSource()
            .withComponent("gpufleet-interruption-drain")
            .endSource()
            .withFirstTimestamp("1970-01-01T00:00:00Z")
            .withLastTimestamp("1970-01-01T00:00:00Z")
            .withCount(1)
            .build();
    json.unmarshal(json.asJson(event), io.fabric8.kubernetes.api.model.Event.class);
  }

  private static final String SAMPLE_PODS =
      """
      {"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"1","continue":""},
       "items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","uid":"u",
       "resourceVersion":"1","creationTimestamp":"1970-01-01T00:00:00Z","labels":{"a":"b"},
       "annotations":{"a":"b"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet",
       "name":"r","uid":"u","controller":true,"blockOwnerDeletion":true}]},
       "spec":{"nodeName":"n","priority":0,"priorityClassName":"c",
       "terminationGracePeriodSeconds":30,"containers":[{"name":"c","image":"i"}]},
       "status":{"phase":"Running"}}]}
      """;

  private static final String SAMPLE_NODES =
      """
      {"apiVersion":"v1","kind":"NodeList","metadata":{"resourceVersion":"1"},
       "items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n","uid":"u",
       "resourceVersion":"1","labels":{"a":"b"},"annotations":{"a":"b"}},
       "spec":{"providerID":"aws:///z/i-0","unschedulable":true,
       "taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},
       "status":{"conditions":[{"type":"Ready","status":"True"}]}}]}
      """;
}

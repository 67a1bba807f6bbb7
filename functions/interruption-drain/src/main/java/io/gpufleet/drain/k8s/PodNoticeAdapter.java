package io.gpufleet.drain.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.core.json.Json;
import io.gpufleet.drain.DrainClusterPort.ClusterUnavailableException;
import io.gpufleet.drain.PodNoticePort;
import io.gpufleet.drain.model.PodInfo;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * {@link PodNoticePort} over fabric8: a JSON merge patch of the pod's annotations (its UID in the
 * patch is a precondition: the API server answers 409 when the name now belongs to another pod) and
 * an events.k8s.io/v1 Event written as a generic resource (the typed events model is not in the
 * function's jar).
 */
public final class PodNoticeAdapter implements PodNoticePort {
  static final String REPORTING_CONTROLLER = "gpufleet.io/interruption-drain";
  static final int MAX_NOTE = 1000;

  static final ResourceDefinitionContext EVENTS =
      new ResourceDefinitionContext.Builder()
          .withGroup("events.k8s.io")
          .withVersion("v1")
          .withKind("Event")
          .withPlural("events")
          .withNamespaced(true)
          .build();

  /** MicroTime, as events.k8s.io/v1 wants eventTime. */
  static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private final KubernetesClient client;

  public PodNoticeAdapter(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public boolean annotate(PodInfo pod, Map<String, String> annotations) {
    var metadata = new LinkedHashMap<String, Object>();
    metadata.put("uid", pod.uid());
    metadata.put("annotations", annotations);
    // Patched through an item naming the pod: fabric8 would GET a pod named only by withName
    // first, and the drain may not get pods.
    var target = new GenericKubernetesResource();
    target.setApiVersion("v1");
    target.setKind("Pod");
    var meta = new io.fabric8.kubernetes.api.model.ObjectMeta();
    meta.setName(pod.name());
    meta.setNamespace(pod.namespace());
    target.setMetadata(meta);
    try {
      client
          .genericKubernetesResources(KubeResources.PODS)
          .inNamespace(pod.namespace())
          .resource(target)
          .patch(PatchContext.of(PatchType.JSON_MERGE), Json.write(Map.of("metadata", metadata)));
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404 || e.getCode() == 409) {
        return false;
      }
      throw new ClusterUnavailableException(
          "Kubernetes API: annotate pod " + pod.key() + " failed (HTTP " + e.getCode() + ")", e);
    }
  }

  @Override
  public void recordPodEvent(
      PodInfo pod, boolean warning, String reason, String action, String note) {
    var event = new GenericKubernetesResource();
    event.setApiVersion("events.k8s.io/v1");
    event.setKind("Event");
    var meta = new io.fabric8.kubernetes.api.model.ObjectMeta();
    meta.setName(pod.name() + "." + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    meta.setNamespace(pod.namespace());
    event.setMetadata(meta);
    var regarding = new LinkedHashMap<String, Object>();
    regarding.put("apiVersion", "v1");
    regarding.put("kind", "Pod");
    regarding.put("namespace", pod.namespace());
    regarding.put("name", pod.name());
    regarding.put("uid", pod.uid());
    var props = event.getAdditionalProperties();
    props.put("eventTime", MICRO_TIME.format(Instant.now()));
    props.put("reportingController", REPORTING_CONTROLLER);
    props.put("reportingInstance", "gpufleet-interruption-drain");
    props.put("action", action);
    props.put("reason", reason);
    props.put("type", warning ? "Warning" : "Normal");
    props.put("regarding", regarding);
    props.put("note", note.length() > MAX_NOTE ? note.substring(0, MAX_NOTE) : note);
    try {
      client
          .genericKubernetesResources(EVENTS)
          .inNamespace(pod.namespace())
          .resource(event)
          .create();
    } catch (KubernetesClientException e) {
      throw new ClusterUnavailableException(
          "Kubernetes API: Event on pod " + pod.key() + " failed (HTTP " + e.getCode() + ")", e);
    }
  }
}

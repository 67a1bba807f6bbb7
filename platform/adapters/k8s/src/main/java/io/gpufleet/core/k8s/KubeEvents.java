package io.gpufleet.core.k8s;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/**
 * The one way the functions write a core/v1 Event about an object they acted on: what {@code
 * kubectl describe} shows beside it. The message is cut to 1,000 characters (the API server's own
 * limit is 1 KiB of note in events.k8s.io; a longer core Event is accepted but floods describe).
 */
public final class KubeEvents {
  static final int MAX_MESSAGE = 1000;

  private KubeEvents() {}

  /**
   * An Event about {@code involved}, written in {@code namespace} (a cluster-scoped object's events
   * go to {@code default}, as kubectl looks for them there), from {@code component}.
   */
  public static Event event(
      Instant now,
      String component,
      String namespace,
      ObjectReference involved,
      boolean warning,
      String reason,
      String message) {
    String at = now.truncatedTo(ChronoUnit.SECONDS).toString();
    return new EventBuilder()
        .withNewMetadata()
        .withName(
            involved.getName()
                + "."
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12))
        .withNamespace(namespace)
        .endMetadata()
        .withInvolvedObject(involved)
        .withType(warning ? "Warning" : "Normal")
        .withReason(reason)
        .withMessage(message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message)
        .withNewSource()
        .withComponent(component)
        .endSource()
        .withFirstTimestamp(at)
        .withLastTimestamp(at)
        .withCount(1)
        .build();
  }

  /** Writes {@link #event} with {@code client}. */
  public static void record(
      KubernetesClient client,
      Instant now,
      String component,
      String namespace,
      ObjectReference involved,
      boolean warning,
      String reason,
      String message) {
    client
        .v1()
        .events()
        .inNamespace(namespace)
        .resource(event(now, component, namespace, involved, warning, reason, message))
        .create();
  }
}

package io.gpufleet.drain;

import io.gpufleet.drain.model.PodInfo;
import java.util.Map;

/**
 * The writes that tell a pod of its node's interruption: annotations on the pod (the only pod
 * fields the drain may change, see deploy/confinement/interruption-drain.yaml) and an
 * events.k8s.io/v1 Event regarding it. Transient failures surface as {@link
 * DrainClusterPort.ClusterUnavailableException}; the caller decides whether they matter.
 */
public interface PodNoticePort {
  /**
   * Merges {@code annotations} into the pod's (the pod's UID as precondition); false when the pod
   * is gone (404, or its name now belongs to another pod).
   */
  boolean annotate(PodInfo pod, Map<String, String> annotations);

  /** One events.k8s.io/v1 Event in the pod's namespace, regarding the pod. */
  void recordPodEvent(PodInfo pod, boolean warning, String reason, String action, String note);

  /** A port that cannot tell pods anything: every call fails, naming what was asked. */
  PodNoticePort UNSUPPORTED =
      new PodNoticePort() {
        @Override
        public boolean annotate(PodInfo pod, Map<String, String> annotations) {
          throw new UnsupportedOperationException("this cluster port cannot annotate " + pod.key());
        }

        @Override
        public void recordPodEvent(
            PodInfo pod, boolean warning, String reason, String action, String note) {
          throw new UnsupportedOperationException(
              "this cluster port cannot record an Event on " + pod.key());
        }
      };
}

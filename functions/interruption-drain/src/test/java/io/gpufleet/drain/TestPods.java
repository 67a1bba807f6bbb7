package io.gpufleet.drain;

import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Builders for the model records the drain works on. */
final class TestPods {
  private TestPods() {}

  /** A running ReplicaSet pod, {@code key} as namespace/name, 30 s grace. */
  static PodInfo pod(String key) {
    String[] nsName = key.split("/", 2);
    return new PodInfo(
        nsName[0],
        nsName[1],
        UUID.nameUUIDFromBytes(key.getBytes()).toString(),
        "Running",
        "ReplicaSet",
        false,
        false,
        null,
        null,
        30L,
        Map.of("app", nsName[1]));
  }

  static PodInfo withGrace(PodInfo p, Long grace) {
    return p.withTerminationGracePeriodSeconds(grace);
  }

  static PodInfo withOwner(PodInfo p, String ownerKind) {
    return p.withOwnerKind(ownerKind);
  }

  static PodInfo withPhase(PodInfo p, String phase) {
    return p.withPhase(phase);
  }

  static PodInfo mirror(PodInfo p) {
    return p.withMirror(true);
  }

  static PodInfo terminating(PodInfo p) {
    return p.withTerminating(true);
  }

  static PodInfo withPriority(PodInfo p, String priorityClassName, Integer priority) {
    return p.withPriority(priorityClassName, priority);
  }

  static PodInfo critical(String key) {
    return withPriority(pod(key), "system-cluster-critical", 2_000_000_000);
  }

  static NodeInfo node(String name, String instanceId) {
    return new NodeInfo(
        name,
        "aws:///us-east-1a/" + instanceId,
        "1",
        false,
        List.of(),
        Map.of("kubernetes.io/hostname", name),
        Map.of());
  }
}

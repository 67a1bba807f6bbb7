package io.gpufleet.drain.model;

import java.util.Map;

/** What the drain needs to know of a Pod. */
public record PodInfo(
    String namespace,
    String name,
    String uid,
    String phase,
    String ownerKind,
    boolean mirror,
    boolean terminating,
    String priorityClassName,
    Integer priority,
    Long terminationGracePeriodSeconds,
    Map<String, String> labels,
    Map<String, String> annotations) {

  /** A pod whose annotations the caller does not need. */
  public PodInfo(
      String namespace,
      String name,
      String uid,
      String phase,
      String ownerKind,
      boolean mirror,
      boolean terminating,
      String priorityClassName,
      Integer priority,
      Long terminationGracePeriodSeconds,
      Map<String, String> labels) {
    this(
        namespace,
        name,
        uid,
        phase,
        ownerKind,
        mirror,
        terminating,
        priorityClassName,
        priority,
        terminationGracePeriodSeconds,
        labels,
        Map.of());
  }

  public String key() {
    return namespace + "/" + name;
  }
}

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

  /** A pod known only by its namespace, name and uid (e.g. one to force-delete). */
  public static PodInfo ref(String namespace, String name, String uid) {
    return new PodInfo(namespace, name, uid, null, null, false, false, null, null, null, Map.of());
  }

  /** This pod in another phase. */
  public PodInfo withPhase(String newPhase) {
    return new PodInfo(
        namespace,
        name,
        uid,
        newPhase,
        ownerKind,
        mirror,
        terminating,
        priorityClassName,
        priority,
        terminationGracePeriodSeconds,
        labels,
        annotations);
  }

  /** This pod owned by a controller of another kind. */
  public PodInfo withOwnerKind(String newOwnerKind) {
    return new PodInfo(
        namespace,
        name,
        uid,
        phase,
        newOwnerKind,
        mirror,
        terminating,
        priorityClassName,
        priority,
        terminationGracePeriodSeconds,
        labels,
        annotations);
  }

  /** This pod as a mirror (static) pod or not. */
  public PodInfo withMirror(boolean newMirror) {
    return new PodInfo(
        namespace,
        name,
        uid,
        phase,
        ownerKind,
        newMirror,
        terminating,
        priorityClassName,
        priority,
        terminationGracePeriodSeconds,
        labels,
        annotations);
  }

  /** This pod being deleted (its deletionTimestamp set) or not. */
  public PodInfo withTerminating(boolean newTerminating) {
    return new PodInfo(
        namespace,
        name,
        uid,
        phase,
        ownerKind,
        mirror,
        newTerminating,
        priorityClassName,
        priority,
        terminationGracePeriodSeconds,
        labels,
        annotations);
  }

  /** This pod with another priority class and priority. */
  public PodInfo withPriority(String newPriorityClassName, Integer newPriority) {
    return new PodInfo(
        namespace,
        name,
        uid,
        phase,
        ownerKind,
        mirror,
        terminating,
        newPriorityClassName,
        newPriority,
        terminationGracePeriodSeconds,
        labels,
        annotations);
  }

  /** This pod with another terminationGracePeriodSeconds (null: not set). */
  public PodInfo withTerminationGracePeriodSeconds(Long seconds) {
    return new PodInfo(
        namespace,
        name,
        uid,
        phase,
        ownerKind,
        mirror,
        terminating,
        priorityClassName,
        priority,
        seconds,
        labels,
        annotations);
  }

  public String key() {
    return namespace + "/" + name;
  }
}

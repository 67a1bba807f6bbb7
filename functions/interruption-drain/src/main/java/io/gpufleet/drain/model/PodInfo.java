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
    return copy(
        newPhase,
        ownerKind,
        mirror,
        terminating,
        priorityClassName,
        priority,
        terminationGracePeriodSeconds);
  }

  /** This pod owned by a controller of another kind. */
  public PodInfo withOwnerKind(String newOwnerKind) {
    return copy(
        phase,
        newOwnerKind,
        mirror,
        terminating,
        priorityClassName,
        priority,
        terminationGracePeriodSeconds);
  }

  /** This pod as a mirror (static) pod or not. */
  public PodInfo withMirror(boolean newMirror) {
    return copy(
        phase,
        ownerKind,
        newMirror,
        terminating,
        priorityClassName,
        priority,
        terminationGracePeriodSeconds);
  }

  /** This pod being deleted (its deletionTimestamp set) or not. */
  public PodInfo withTerminating(boolean newTerminating) {
    return copy(
        phase,
        ownerKind,
        mirror,
        newTerminating,
        priorityClassName,
        priority,
        terminationGracePeriodSeconds);
  }

  /** This pod with another priority class and priority. */
  public PodInfo withPriority(String newPriorityClassName, Integer newPriority) {
    return copy(
        phase,
        ownerKind,
        mirror,
        terminating,
        newPriorityClassName,
        newPriority,
        terminationGracePeriodSeconds);
  }

  /** This pod with another terminationGracePeriodSeconds (null: not set). */
  public PodInfo withTerminationGracePeriodSeconds(Long seconds) {
    return copy(phase, ownerKind, mirror, terminating, priorityClassName, priority, seconds);
  }

  /** The one copy: this pod's identity, labels and annotations with the given state. */
  private PodInfo copy(
      String newPhase,
      String newOwnerKind,
      boolean newMirror,
      boolean newTerminating,
      String newPriorityClassName,
      Integer newPriority,
      Long newGracePeriodSeconds) {
    return new PodInfo(
        namespace,
        name,
        uid,
        newPhase,
        newOwnerKind,
        newMirror,
        newTerminating,
        newPriorityClassName,
        newPriority,
        newGracePeriodSeconds,
        labels,
        annotations);
  }

  public String key() {
    return namespace + "/" + name;
  }
}

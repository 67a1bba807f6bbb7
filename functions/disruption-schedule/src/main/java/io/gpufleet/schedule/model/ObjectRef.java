package io.gpufleet.schedule.model;

/** An object the reconcile reads or writes; {@code namespace} is null for NodePools. */
public record ObjectRef(
    String apiVersion,
    String kind,
    String namespace,
    String name,
    String uid,
    String resourceVersion) {
  public String display() {
    return kind + " " + (namespace == null ? name : namespace + "/" + name);
  }
}

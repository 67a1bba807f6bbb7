package io.gpufleet.schedule.model;

/**
 * An object the reconcile reads or writes; {@code namespace} is null for NodePools. {@code
 * generation} (metadata.generation, null when unknown) tells whether the spec changed since the
 * read.
 */
public record ObjectRef(
    String apiVersion,
    String kind,
    String namespace,
    String name,
    String uid,
    String resourceVersion,
    Long generation) {
  public ObjectRef(
      String apiVersion,
      String kind,
      String namespace,
      String name,
      String uid,
      String resourceVersion) {
    this(apiVersion, kind, namespace, name, uid, resourceVersion, null);
  }

  public String display() {
    return kind + " " + (namespace == null ? name : namespace + "/" + name);
  }
}

package io.gpufleet.drain.model;

import java.util.List;
import java.util.Map;

/** What the drain needs to know of a Kubernetes Node. */
public record NodeInfo(
    String name,
    String providerId,
    String resourceVersion,
    boolean unschedulable,
    List<Taint> taints,
    Map<String, String> labels,
    Map<String, String> annotations) {

  public record Taint(String key, String value, String effect) {}

  public boolean hasTaint(String key, String effect) {
    return taints.stream().anyMatch(t -> t.key().equals(key) && t.effect().equals(effect));
  }
}

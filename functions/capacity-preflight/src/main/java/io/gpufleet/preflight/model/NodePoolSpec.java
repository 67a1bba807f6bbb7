package io.gpufleet.preflight.model;

import java.util.List;
import java.util.Map;

/**
 * The parts of a karpenter.sh/v1 NodePool that bound what it can launch: {@code limits} (resource
 * name → quantity text, e.g. "nvidia.com/gpu" → "64") and the template's requirements.
 */
public record NodePoolSpec(
    String name, Map<String, String> limits, List<Requirement> requirements) {

  /** A node selector requirement: key, operator (In, NotIn, Exists, DoesNotExist, Gt, Lt). */
  public record Requirement(String key, String operator, List<String> values) {}
}

package io.gpufleet.preflight.model;

import java.util.List;
import java.util.Map;

/**
 * The parts of a karpenter.sh/v1 NodePool that bound what it can launch and how it disrupts: {@code
 * limits} (resource name → quantity text, e.g. "nvidia.com/gpu" → "64"), the template's
 * requirements, the pool's own labels and annotations (used to classify it as inference or
 * training), {@code spec.disruption} and the group of {@code nodeClassRef} ({@code
 * karpenter.k8s.aws} for Karpenter, {@code eks.amazonaws.com} for EKS Auto Mode).
 */
public record NodePoolSpec(
    String name,
    Map<String, String> limits,
    List<Requirement> requirements,
    Map<String, String> labels,
    Map<String, String> annotations,
    String consolidationPolicy,
    String consolidateAfter,
    String nodeClassGroup) {

  public static final String AUTO_MODE_GROUP = "eks.amazonaws.com";

  public NodePoolSpec(String name, Map<String, String> limits, List<Requirement> requirements) {
    this(name, limits, requirements, Map.of(), Map.of(), null, null, null);
  }

  /** An EKS Auto Mode pool: its nodeClassRef points at eks.amazonaws.com NodeClass. */
  public boolean autoMode() {
    return AUTO_MODE_GROUP.equals(nodeClassGroup);
  }

  /** A node selector requirement: key, operator (In, NotIn, Exists, DoesNotExist, Gt, Lt). */
  public record Requirement(String key, String operator, List<String> values) {}
}

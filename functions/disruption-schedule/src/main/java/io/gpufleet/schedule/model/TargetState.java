package io.gpufleet.schedule.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import java.time.Instant;
import java.util.Map;

/**
 * What the reconcile needs of one object. {@code fields} holds the managed values only: {@code
 * replicas} (Deployment, StatefulSet), {@code minReplicas} (HPA), {@code pausedReplicas} (KEDA
 * ScaledObject, absent when not paused), {@code budgets}/{@code consolidateAfter} (NodePool).
 * {@code pods} is what one replica asks for (Deployments and StatefulSets; else null).
 */
public record TargetState(
    ObjectRef ref,
    WorkloadKind workloadKind,
    Map<String, String> labels,
    Map<String, String> annotations,
    Instant created,
    ObjectNode fields,
    Integer maxReplicas,
    String scaleTargetKind,
    String scaleTargetName,
    String controlledBy,
    PodTemplate pods) {

  /** An object without a pod template read (NodePools, autoscalers, tests). */
  public TargetState(
      ObjectRef ref,
      WorkloadKind workloadKind,
      Map<String, String> labels,
      Map<String, String> annotations,
      Instant created,
      ObjectNode fields,
      Integer maxReplicas,
      String scaleTargetKind,
      String scaleTargetName,
      String controlledBy) {
    this(
        ref,
        workloadKind,
        labels,
        annotations,
        created,
        fields,
        maxReplicas,
        scaleTargetKind,
        scaleTargetName,
        controlledBy,
        null);
  }

  public boolean isNodePool() {
    return workloadKind == null;
  }

  public String annotation(String key) {
    return annotations == null ? null : annotations.get(key);
  }
}

package io.gpufleet.schedule;

import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.model.Write;
import java.util.List;

/** The Kubernetes calls the schedule makes, and nothing else. */
public interface ScheduleClusterPort {
  /** Karpenter NodePools (empty when the CRD is not installed). */
  List<TargetState> nodePools();

  /** Deployments, StatefulSets, HPAs and KEDA ScaledObjects of all namespaces. */
  List<TargetState> workloads();

  /**
   * Server-side apply of the managed fields and bookkeeping annotations (field manager gpufleet).
   */
  void apply(Write write);

  /** A Kubernetes Event on the object (best effort). */
  void recordEvent(ObjectRef ref, boolean warning, String reason, String message);
}

package io.gpufleet.drain;

import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.NodeChange;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Kubernetes calls the drain makes, and no others. Transient API failures (unreachable, 5xx on
 * reads) surface as {@link ClusterUnavailableException}.
 */
public interface DrainClusterPort {
  /** The node whose spec.providerID is aws:///&lt;az&gt;/&lt;instanceId&gt;, if any. */
  Optional<NodeInfo> findNodeByInstanceId(String instanceId);

  /**
   * The node of {@code instanceId} if this port already knows it without a request (e.g. from its
   * last listing); empty means "not known here", not "absent". Used to route an event among several
   * clusters before any cluster is asked.
   */
  default Optional<NodeInfo> knownNode(String instanceId) {
    return Optional.empty();
  }

  /**
   * Lets {@link #findNodeByInstanceId} try the node EC2 names for the instance (one GET) before
   * listing every node. Ports without such a shortcut ignore it.
   */
  default void useInstanceDirectory(InstanceLookupPort directory) {}

  /** The label Karpenter puts on nodes launched into a Capacity Reservation or Capacity Block. */
  String CAPACITY_RESERVATION_LABEL = "karpenter.k8s.aws/capacity-reservation-id";

  /** Nodes labelled {@link #CAPACITY_RESERVATION_LABEL}={@code reservationId}. */
  List<NodeInfo> nodesInCapacityReservation(String reservationId);

  Optional<NodeInfo> getNode(String name);

  /** True when the node exists and its Ready condition is True. */
  boolean nodeReady(String name);

  /** Applies the change in one patch; false when guarded and the node changed since it was read. */
  boolean patchNode(NodeInfo node, NodeChange change);

  List<PodInfo> podsOnNode(String nodeName);

  /** policy/v1 Eviction with the pod's UID as precondition and the given grace period. */
  EvictionResult evict(PodInfo pod, long gracePeriodSeconds);

  /** Delete with grace period 0; false if the pod was already gone. */
  boolean forceDelete(PodInfo pod);

  /**
   * The PodDisruptionBudgets selecting each pod (pod key → budgets; pods without one are absent),
   * with the status the disruption controller last computed.
   */
  Map<String, List<BudgetInfo>> budgetsFor(List<PodInfo> pods);

  void recordNodeEvent(String nodeName, boolean warning, String reason, String message);

  /** Writes that tell the node's opted-in pods of the interruption (checkpoint-aware drain). */
  default PodNoticePort podNotices() {
    return PodNoticePort.UNSUPPORTED;
  }

  /** One PodDisruptionBudget as the drain reports it. */
  record BudgetInfo(
      String namespace,
      String name,
      String rule,
      Integer currentHealthy,
      Integer desiredHealthy,
      Integer disruptionsAllowed) {
    public String describe() {
      return "PodDisruptionBudget "
          + namespace
          + "/"
          + name
          + " ("
          + rule
          + (disruptionsAllowed == null
              ? ""
              : ", healthy "
                  + currentHealthy
                  + "/"
                  + desiredHealthy
                  + " required, disruptionsAllowed "
                  + disruptionsAllowed)
          + ")";
    }
  }

  /** The API server could not be reached or failed on a call the drain cannot do without. */
  final class ClusterUnavailableException extends RuntimeException {
    public ClusterUnavailableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}

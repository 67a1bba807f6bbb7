package io.gpufleet.drain;

import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.NodeChange;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A cluster of the stack reached on first use: building its client (EKS DescribeCluster) may fail
 * for one cluster, e.g. deleted or not yet granted, without failing the function's init for the
 * others. Until it is built, every call reports the cluster unavailable (so the event is retried),
 * and the next call tries again.
 */
public final class LazyDrainClusterPort implements DrainClusterPort {
  private final String name;
  private final Supplier<DrainClusterPort> build;
  private volatile DrainClusterPort built;

  public LazyDrainClusterPort(String name, Supplier<DrainClusterPort> build) {
    this.name = name;
    this.build = build;
  }

  private DrainClusterPort port() {
    DrainClusterPort p = built;
    if (p != null) {
      return p;
    }
    synchronized (this) {
      if (built == null) {
        try {
          DrainClusterPort fresh = build.get();
          fresh.useInstanceDirectory(directory);
          built = fresh;
        } catch (ClusterUnavailableException e) {
          throw e;
        } catch (RuntimeException e) {
          throw new ClusterUnavailableException(
              "cluster " + name + " could not be reached: " + e.getMessage(), e);
        }
      }
      return built;
    }
  }

  @Override
  public Optional<NodeInfo> findNodeByInstanceId(String instanceId) {
    return port().findNodeByInstanceId(instanceId);
  }

  private volatile InstanceLookupPort directory = InstanceLookupPort.NONE;

  @Override
  public void useInstanceDirectory(InstanceLookupPort directory) {
    this.directory = directory;
    DrainClusterPort p = built;
    if (p != null) {
      p.useInstanceDirectory(directory);
    }
  }

  @Override
  public Optional<NodeInfo> knownNode(String instanceId) {
    DrainClusterPort p = built;
    return p == null ? Optional.empty() : p.knownNode(instanceId);
  }

  @Override
  public List<NodeInfo> nodesInCapacityReservation(String reservationId) {
    return port().nodesInCapacityReservation(reservationId);
  }

  @Override
  public Optional<NodeInfo> getNode(String nodeName) {
    return port().getNode(nodeName);
  }

  @Override
  public boolean nodeReady(String nodeName) {
    return port().nodeReady(nodeName);
  }

  @Override
  public boolean patchNode(NodeInfo node, NodeChange change) {
    return port().patchNode(node, change);
  }

  @Override
  public List<PodInfo> podsOnNode(String nodeName) {
    return port().podsOnNode(nodeName);
  }

  @Override
  public EvictionResult evict(PodInfo pod, long gracePeriodSeconds) {
    return port().evict(pod, gracePeriodSeconds);
  }

  @Override
  public boolean forceDelete(PodInfo pod) {
    return port().forceDelete(pod);
  }

  @Override
  public Map<String, List<BudgetInfo>> budgetsFor(List<PodInfo> pods) {
    return port().budgetsFor(pods);
  }

  @Override
  public void recordNodeEvent(String nodeName, boolean warning, String reason, String message) {
    port().recordNodeEvent(nodeName, warning, reason, message);
  }

  @Override
  public PodNoticePort podNotices() {
    return port().podNotices();
  }
}

package io.gpufleet.cost;

import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import java.util.List;

/** Port: the cluster's nodes and its scheduled pods (Kubernetes API). */
public interface CostClusterPort {
  List<ClusterNode> nodes();

  /** Pods bound to a node, every namespace. */
  List<ClusterPod> pods();

  /** What could not be read and why (e.g. DRA not served), for the report's notes. */
  default List<String> notes() {
    return List.of();
  }
}

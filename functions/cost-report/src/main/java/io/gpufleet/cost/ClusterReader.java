package io.gpufleet.cost;

import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import java.util.List;

/** Port: the cluster's nodes and its scheduled pods (Kubernetes API). */
public interface ClusterReader {
  List<ClusterNode> nodes();

  /** Pods bound to a node, every namespace. */
  List<ClusterPod> pods();
}

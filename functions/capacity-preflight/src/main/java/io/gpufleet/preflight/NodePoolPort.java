package io.gpufleet.preflight;

import io.gpufleet.preflight.model.NodePoolSpec;
import java.util.List;

/** Port: the cluster's Karpenter NodePools (karpenter.sh/v1). */
@FunctionalInterface
public interface NodePoolPort {
  List<NodePoolSpec> nodePools();

  NodePoolPort NONE = List::of;
}

package io.gpufleet.cost;

import io.gpufleet.cost.model.Ec2Instance;
import java.util.Collection;
import java.util.List;

/** Port: EC2 DescribeInstances. */
public interface InstancePort {
  /**
   * Instances tagged for the cluster (any state EC2 still lists) plus the given instance ids (nodes
   * whose instances may lack the cluster tag, e.g. self-managed).
   */
  List<Ec2Instance> clusterInstances(String cluster, Collection<String> alsoIds);
}

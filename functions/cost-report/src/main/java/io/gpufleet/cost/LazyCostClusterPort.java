package io.gpufleet.cost;

import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import java.util.List;
import java.util.function.Supplier;

/**
 * A further cluster of the run reached on first use: building its client (EKS DescribeCluster) may
 * fail for this cluster alone, e.g. deleted or not yet granted, without failing the function's
 * init. A failed build is tried again on the next run.
 */
public final class LazyCostClusterPort implements CostClusterPort {
  private final String name;
  private final Supplier<CostClusterPort> build;
  private volatile CostClusterPort built;

  public LazyCostClusterPort(String name, Supplier<CostClusterPort> build) {
    this.name = name;
    this.build = build;
  }

  private CostClusterPort reader() {
    CostClusterPort r = built;
    if (r != null) {
      return r;
    }
    synchronized (this) {
      if (built == null) {
        try {
          built = build.get();
        } catch (RuntimeException e) {
          throw new IllegalStateException(
              "cluster " + name + " could not be reached: " + e.getMessage(), e);
        }
      }
      return built;
    }
  }

  @Override
  public List<ClusterNode> nodes() {
    return reader().nodes();
  }

  @Override
  public List<ClusterPod> pods() {
    return reader().pods();
  }

  @Override
  public List<String> notes() {
    CostClusterPort r = built;
    return r == null ? List.of() : r.notes();
  }
}

package io.gpufleet.cost;

import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.SpotPricePoint;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/** Behavioural fakes of the cost report's ports and small builders. */
public final class Fixtures {
  static final String CLUSTER = "c1";
  static final String REGION = "us-east-1";

  private Fixtures() {}

  static ClusterNode gpuNode(
      String name, String id, String type, int gpus, String capacityType, Instant created) {
    return new ClusterNode(
        name,
        id == null ? null : "aws:///us-east-1a/" + id,
        id,
        type,
        "us-east-1a",
        capacityType,
        "gpu-pool",
        null,
        created,
        gpus,
        gpus > 0 ? "nvidia.com/gpu" : null,
        48_000,
        384L << 30);
  }

  static ClusterPod pod(String ns, String name, String node, double gpus, Instant start) {
    return new ClusterPod(
        ns,
        name,
        ns + "/" + name,
        node,
        "team-" + ns,
        gpus > 0 ? Map.of("nvidia.com/gpu", gpus) : Map.of(),
        1000,
        4L << 30,
        start,
        null);
  }

  static Ec2Instance instance(String id, String type, Lifecycle lc, Instant launch) {
    return new Ec2Instance(id, type, "us-east-1a", lc, launch, "running", null, "gpu-pool", null);
  }

  static Ec2Instance terminated(
      String id, String type, Lifecycle lc, Instant launch, Instant stopped) {
    return new Ec2Instance(
        id, type, "us-east-1a", lc, launch, "terminated", stopped, "gpu-pool", null);
  }

  static final class FakeCluster implements CostClusterPort {
    final List<ClusterNode> nodes = new CopyOnWriteArrayList<>();
    final List<ClusterPod> pods = new CopyOnWriteArrayList<>();

    @Override
    public List<ClusterNode> nodes() {
      return List.copyOf(nodes);
    }

    @Override
    public List<ClusterPod> pods() {
      return List.copyOf(pods);
    }
  }

  public static final class FakeEc2 implements InstancePort {
    public final List<Ec2Instance> instances = new CopyOnWriteArrayList<>();
    final List<Collection<String>> askedIds = new CopyOnWriteArrayList<>();

    @Override
    public List<Ec2Instance> clusterInstances(String cluster, Collection<String> alsoIds) {
      askedIds.add(List.copyOf(alsoIds));
      return List.copyOf(instances);
    }
  }

  public static final class FakeSpot implements SpotPriceHistoryPort {
    final List<SpotPricePoint> points = new CopyOnWriteArrayList<>();
    final List<Set<String>> asked = new CopyOnWriteArrayList<>();
    volatile boolean fail;

    void price(String zone, String type, Instant at, String usd) {
      points.add(new SpotPricePoint(zone, type, at, new BigDecimal(usd)));
    }

    @Override
    public List<SpotPricePoint> history(Set<String> types, Instant start, Instant end) {
      asked.add(Set.copyOf(types));
      if (fail) {
        throw new IllegalStateException("RequestLimitExceeded");
      }
      var out = new ArrayList<SpotPricePoint>();
      for (var p : points) {
        if (types.contains(p.instanceType()) && p.at().isBefore(end)) {
          out.add(p);
        }
      }
      return out;
    }
  }
}

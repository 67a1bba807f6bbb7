package io.gpufleet.cost;

import io.gpufleet.core.catalog.AcceleratorKind;
import io.gpufleet.core.catalog.CatalogEntry;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeGpus;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.PodRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * Pure: joins what the cluster and EC2 say now with the previous snapshot into the next snapshot.
 *
 * <ul>
 *   <li>A node is joined to its instance by the instance id in its providerID; the instance gives
 *       type, zone, lifecycle and launch time, the node its NodePool / node group labels and
 *       allocatable accelerators, CPU and memory.
 *   <li>A node without an EC2 match is kept ({@code ec2Matched=false}), priced from its labels.
 *   <li>A cluster-tagged instance that is not a node is kept ({@code inCluster=false}): it costs
 *       money for the cluster (e.g. a node that never joined).
 *   <li>What the previous snapshot knew and is gone now (terminated instances leave EC2 within
 *       about an hour) is carried over, ending at its known stop time or, failing that, the last
 *       time it was seen ({@code endEstimated}).
 *   <li>Records that ended before {@code now - retention} are dropped.
 * </ul>
 */
public final class InventoryMerger {
  private InventoryMerger() {}

  public static InventorySnapshot merge(
      String cluster,
      String region,
      Instant now,
      List<ClusterNode> nodes,
      List<ClusterPod> pods,
      List<Ec2Instance> instances,
      InventorySnapshot previous,
      Duration retention) {
    return merge(cluster, region, now, nodes, pods, instances, previous, retention, Map.of());
  }

  /**
   * As above; {@code sharingReplicas} maps device-plugin config names to their time-slicing/MPS
   * replicas for nodes that carry no replicas label.
   */
  public static InventorySnapshot merge(
      String cluster,
      String region,
      Instant now,
      List<ClusterNode> nodes,
      List<ClusterPod> pods,
      List<Ec2Instance> instances,
      InventorySnapshot previous,
      Duration retention,
      Map<String, Integer> sharingReplicas) {
    var gpusByNode = new HashMap<String, NodeGpus>();
    var ec2 = new HashMap<String, Ec2Instance>();
    for (Ec2Instance i : instances) {
      ec2.put(i.instanceId(), i);
    }
    var before = new HashMap<String, NodeRecord>();
    for (NodeRecord r : previous.nodes()) {
      before.put(r.id(), r);
    }
    var out = new ArrayList<NodeRecord>();
    var seen = new HashSet<String>();
    var nodeByName = new HashMap<String, ClusterNode>();
    for (ClusterNode n : nodes) {
      nodeByName.put(n.name(), n);
      String id = n.instanceId() != null ? n.instanceId() : "node/" + n.name();
      Ec2Instance i = n.instanceId() == null ? null : ec2.get(n.instanceId());
      NodeRecord prior = before.get(id);
      Lifecycle lifecycle =
          i != null
              ? i.lifecycle()
              : Lifecycle.fromLabel(n.capacityTypeLabel()).orElse(Lifecycle.ON_DEMAND);
      Instant start =
          i != null && i.launchTime() != null
              ? i.launchTime()
              : prior != null ? prior.start() : n.createdAt();
      Instant end = i != null && i.gone() ? orNow(i.stoppedAt(), now) : null;
      String type = i != null ? i.instanceType() : n.instanceType();
      NodeGpus gpus = null;
      int accelerators = n.accelerators();
      String accelResource = n.acceleratorResource();
      if (nvidia(n, type)) {
        var typed = withType(n, type);
        gpus = GpuAccounting.node(typed, sharingReplicas);
        gpusByNode.put(n.name(), gpus);
        nodeByName.put(n.name(), typed);
        accelerators = gpus.physical();
        accelResource = GPU;
      }
      out.add(
          new NodeRecord(
              id,
              n.name(),
              i != null ? i.instanceType() : n.instanceType(),
              region,
              i != null ? i.zone() : n.zone(),
              lifecycle,
              n.nodePool() != null ? n.nodePool() : i != null ? i.nodePool() : null,
              n.nodeGroup() != null ? n.nodeGroup() : i != null ? i.nodeGroup() : null,
              start,
              end,
              false,
              accelerators,
              accelResource,
              n.cpuMillis(),
              n.memoryBytes(),
              i != null,
              true,
              prior != null ? prior.firstSeen() : now,
              now,
              gpus));
      seen.add(id);
    }
    for (Ec2Instance i : instances) {
      if (seen.contains(i.instanceId())) {
        continue;
      }
      NodeRecord prior = before.get(i.instanceId());
      var facts = InstanceCatalog.entry(i.instanceType());
      out.add(
          new NodeRecord(
              i.instanceId(),
              prior != null ? prior.nodeName() : null,
              i.instanceType(),
              region,
              i.zone(),
              i.lifecycle(),
              prior != null && prior.nodePool() != null ? prior.nodePool() : i.nodePool(),
              prior != null && prior.nodeGroup() != null ? prior.nodeGroup() : i.nodeGroup(),
              i.launchTime(),
              i.gone() ? orNow(i.stoppedAt(), now) : null,
              false,
              prior != null
                  ? prior.accelerators()
                  : facts
                      .filter(f -> f.acceleratorResource().isPresent())
                      .map(CatalogEntry::accelerators)
                      .orElse(0),
              prior != null
                  ? prior.acceleratorResource()
                  : facts.flatMap(CatalogEntry::acceleratorResource).orElse(null),
              prior != null ? prior.cpuMillis() : facts.map(f -> f.vcpus() * 1000L).orElse(0L),
              prior != null
                  ? prior.memoryBytes()
                  : facts.map(f -> f.memoryMib() * 1024L * 1024).orElse(0L),
              true,
              prior != null && prior.inCluster(),
              prior != null ? prior.firstSeen() : now,
              now,
              prior != null ? prior.gpus() : null));
      seen.add(i.instanceId());
    }
    Instant horizon = now.minus(retention);
    for (NodeRecord r : previous.nodes()) {
      if (seen.contains(r.id())) {
        continue;
      }
      // gone from the cluster and from EC2 since the last run: it ended at its known stop time,
      // else when it was last seen
      boolean estimated = r.end() == null || r.endEstimated();
      Instant end = r.end() != null ? r.end() : r.lastSeen();
      if (end.isBefore(horizon)) {
        continue;
      }
      out.add(r.withEnd(end, estimated));
    }
    out.removeIf(r -> r.end() != null && r.end().isBefore(horizon));

    var podsOut = new ArrayList<PodRecord>();
    var podSeen = new HashSet<String>();
    for (ClusterPod p : pods) {
      ClusterNode node = nodeByName.get(p.nodeName());
      NodeGpus g = gpusByNode.get(p.nodeName());
      podsOut.add(
          new PodRecord(
              p.uid(),
              p.namespace(),
              p.name(),
              p.nodeName(),
              p.team(),
              g != null
                  ? GpuAccounting.physicalGpus(p.accelerators(), node, g)
                  : acceleratorsIn(p.accelerators(), node),
              p.cpuMillis(),
              p.memoryBytes(),
              p.startedAt(),
              p.finishedAt(),
              now));
      podSeen.add(p.uid());
    }
    for (PodRecord p : previous.pods()) {
      if (podSeen.contains(p.uid())) {
        continue;
      }
      Instant end = p.end() != null ? p.end() : p.lastSeen();
      if (end.isBefore(horizon)) {
        continue;
      }
      podsOut.add(p.withEnd(end));
    }
    return new InventorySnapshot(InventorySnapshot.VERSION, cluster, now, out, podsOut);
  }

  private static final String GPU = "nvidia.com/gpu";

  /** NVIDIA nodes are counted by {@link GpuAccounting}; Neuron nodes keep their device count. */
  private static boolean nvidia(ClusterNode n, String type) {
    if (n.acceleratorResource() != null && !n.acceleratorResource().startsWith("nvidia.com/")) {
      return false;
    }
    if (!n.gpuResources().isEmpty()) {
      return true;
    }
    return type != null && InstanceCatalog.kindOf(type) == AcceleratorKind.NVIDIA_GPU;
  }

  /** The node with the instance type EC2 reports (labels may lack it). */
  private static ClusterNode withType(ClusterNode n, String type) {
    if (type == null || type.equals(n.instanceType())) {
      return n;
    }
    return n.withInstanceType(type);
  }

  private static Instant orNow(Instant t, Instant now) {
    return t != null ? t : now;
  }

  /**
   * A pod's accelerator request in its node's unit: the same resource counts one for one; a request
   * for another accelerator resource the node also advertises (neuroncore on a node counted in
   * neuron devices) is converted by the node's capacity ratio.
   */
  static double acceleratorsIn(Map<String, Double> requests, ClusterNode node) {
    if (requests.isEmpty()) {
      return 0;
    }
    if (node == null || node.acceleratorResource() == null) {
      // unknown node: count GPUs and Neuron devices as they are
      return requests.entrySet().stream()
          .filter(e -> !e.getKey().endsWith("neuroncore"))
          .mapToDouble(Map.Entry::getValue)
          .sum();
    }
    double total = 0;
    for (var e : requests.entrySet()) {
      if (e.getKey().equals(node.acceleratorResource())) {
        total += e.getValue();
      } else if (e.getKey().endsWith("neuroncore")
          && node.acceleratorResource().startsWith("aws.amazon.com/neuron")) {
        // 2 NeuronCores per device on inf2/trn1; the node's capacity carries the real ratio when
        // it advertises cores, which the k8s adapter folds into coresPerDevice
        total += e.getValue() / Math.max(1, coresPerDevice(node));
      }
    }
    return total;
  }

  private static int coresPerDevice(ClusterNode node) {
    String t = node.instanceType() == null ? "" : node.instanceType();
    return t.startsWith("trn2") ? 8 : 2;
  }
}

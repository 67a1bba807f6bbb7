package io.gpufleet.sim;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.gpufleet.core.k8s.CheckpointAnnotations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The simulated cluster behind {@code gpufleet simulate}: eight GPU nodes (p5, g6e, g5; Spot and
 * On-Demand; Karpenter NodePools and a managed node group, one with a custom hostname) and about a
 * hundred pods: DaemonSets on every node, PDB-protected inference replicas, a training StatefulSet
 * whose PDB allows no disruption, checkpointing batch pods with long grace periods, a critical
 * CoreDNS replica, a finished job and a static pod.
 */
public final class DemoFleet {
  public static final String CLUSTER = "sim-gpu-cluster";

  /** A node of the demo fleet. */
  public record NodeSpec(
      String name,
      String instanceId,
      String zone,
      String instanceType,
      String capacityType,
      String nodePool,
      String nodeGroup,
      int gpus) {}

  public static final List<NodeSpec> NODES =
      List.of(
          new NodeSpec(
              "ip-10-0-1-11.ec2.internal",
              "i-0a1b2c3d4e5f60011",
              "us-east-1a",
              "p5.48xlarge",
              "spot",
              "gpu-training",
              null,
              8),
          new NodeSpec(
              "ip-10-0-1-12.ec2.internal",
              "i-0a1b2c3d4e5f60012",
              "us-east-1b",
              "p5.48xlarge",
              "on-demand",
              "gpu-training",
              null,
              8),
          new NodeSpec(
              "ip-10-0-2-21.ec2.internal",
              "i-0a1b2c3d4e5f60021",
              "us-east-1a",
              "g6e.12xlarge",
              "spot",
              "gpu-inference",
              null,
              4),
          new NodeSpec(
              "ip-10-0-2-22.ec2.internal",
              "i-0a1b2c3d4e5f60022",
              "us-east-1c",
              "g6e.12xlarge",
              "spot",
              "gpu-inference",
              null,
              4),
          new NodeSpec(
              "ip-10-0-2-23.ec2.internal",
              "i-0a1b2c3d4e5f60023",
              "us-east-1b",
              "g6e.12xlarge",
              "on-demand",
              "gpu-inference",
              null,
              4),
          new NodeSpec(
              "ip-10-0-3-31.ec2.internal",
              "i-0a1b2c3d4e5f60031",
              "us-east-1a",
              "g5.2xlarge",
              "spot",
              null,
              "ng-gpu-dra",
              1),
          new NodeSpec(
              "ip-10-0-3-32.ec2.internal",
              "i-0a1b2c3d4e5f60032",
              "us-east-1b",
              "g5.2xlarge",
              "on-demand",
              null,
              "ng-gpu-dra",
              1),
          new NodeSpec(
              "gpu-worker-custom-8",
              "i-0a1b2c3d4e5f60033",
              "us-east-1c",
              "g5.12xlarge",
              "spot",
              null,
              "ng-gpu-dra",
              4));

  /** The Capacity Block the demo's p5 On-Demand node runs in ({@link #populateCapacityBlock}). */
  public static final String CAPACITY_BLOCK = "cr-0a1b2c3d4e5f60012";

  private DemoFleet() {}

  /**
   * Labels the p5 On-Demand node as Karpenter labels a node launched into a Capacity Block ({@code
   * karpenter.k8s.aws/capacity-reservation-id}), so a Capacity Block expiration warning for {@link
   * #CAPACITY_BLOCK} finds it.
   */
  public static void populateCapacityBlock(SimCluster cluster) {
    cluster.label(NODES.get(1).name(), "karpenter.k8s.aws/capacity-reservation-id", CAPACITY_BLOCK);
  }

  /** Seeds the cluster and sets realistic pod termination times and replacement behaviour. */
  public static void populate(SimCluster cluster) {
    for (NodeSpec n : NODES) {
      cluster.create(
          SimCluster.gpuNode(
              n.name(),
              n.instanceId(),
              n.zone(),
              n.instanceType(),
              n.capacityType(),
              n.nodePool(),
              n.nodeGroup(),
              n.gpus()));
      for (String ds : List.of("nvidia-device-plugin", "dcgm-exporter", "aws-node", "kube-proxy")) {
        cluster.create(
            SimCluster.runningPod(
                "kube-system",
                ds + "-" + shortName(n),
                n.name(),
                "DaemonSet",
                ds,
                Map.of("app", ds),
                30,
                0));
      }
    }
    String p5spot = NODES.get(0).name();
    String p5od = NODES.get(1).name();
    // Training: a single-replica fine-tune whose PDB allows no disruption.
    cluster.create(
        SimCluster.runningPod(
            "training",
            "llm-finetune-0",
            p5spot,
            "StatefulSet",
            "llm-finetune",
            Map.of("app", "llm-finetune", "team", "ml-research"),
            60,
            8));
    cluster.create(
        SimCluster.pdb("training", "llm-finetune", Map.of("app", "llm-finetune"), "1", null, 1));
    cluster.create(
        SimCluster.runningPod(
            "training",
            "data-loader-0",
            p5spot,
            "ReplicaSet",
            "data-loader",
            Map.of("app", "data-loader", "team", "ml-research"),
            30,
            0));
    cluster.create(
        SimCluster.runningPod(
            "training",
            "data-loader-1",
            p5spot,
            "ReplicaSet",
            "data-loader",
            Map.of("app", "data-loader", "team", "ml-research"),
            30,
            0));
    // Training jobs that opted in to the checkpoint-aware drain: one checkpoints 20 s after it is
    // told, one never reports (evicted at the latest moment its grace still meets the deadline).
    for (String[] job : new String[][] {{"trainer-ckpt-0", "20s"}, {"trainer-silent-0", "never"}}) {
      var pod =
          SimCluster.runningPod(
              "training", job[0], p5spot, "Job", job[0], Map.of("app", "trainer"), 30, 0);
      pod.getMetadata()
          .setAnnotations(
              Map.of(CheckpointAnnotations.CHECKPOINT, "90s", SimCheckpoints.TAKES, job[1]));
      cluster.create(pod);
    }
    cluster.create(finished("training", "preprocess-job-x7k2", p5spot));
    for (int i = 0; i < 4; i++) {
      cluster.create(
          SimCluster.runningPod(
              "training",
              "eval-worker-" + i,
              p5od,
              "ReplicaSet",
              "eval-worker",
              Map.of("app", "eval-worker", "team", "ml-research"),
              30,
              2));
    }
    // Inference: vLLM replicas two per g6e node, PDB maxUnavailable 1 over six.
    int replica = 0;
    for (int node = 2; node <= 4; node++) {
      for (int k = 0; k < 2; k++) {
        cluster.create(
            SimCluster.runningPod(
                "inference",
                "vllm-llama-" + replica++,
                NODES.get(node).name(),
                "ReplicaSet",
                "vllm-llama",
                Map.of("app", "vllm-llama", "team", "ml-platform"),
                45,
                2));
      }
      for (int k = 0; k < 3; k++) {
        cluster.create(
            SimCluster.runningPod(
                "inference",
                "gateway-" + node + k,
                NODES.get(node).name(),
                "ReplicaSet",
                "gateway",
                Map.of("app", "gateway", "team", "ml-platform"),
                20,
                0));
      }
    }
    cluster.create(
        SimCluster.pdb("inference", "vllm-llama", Map.of("app", "vllm-llama"), null, "1", 6));
    cluster.create(
        SimCluster.pdb("inference", "gateway", Map.of("app", "gateway"), "50%", null, 9));
    cluster.create(critical("kube-system", "coredns-5d78c9869d-abcde", NODES.get(4).name()));
    // Node group (DRA) nodes: batch pods that checkpoint for up to five minutes.
    for (int node = 5; node <= 7; node++) {
      NodeSpec n = NODES.get(node);
      for (int k = 0; k < 3; k++) {
        cluster.create(
            SimCluster.runningPod(
                "batch",
                "render-" + shortName(n) + "-" + k,
                n.name(),
                "ReplicaSet",
                "render",
                Map.of("app", "render", "team", "media"),
                300,
                node == 7 ? 1 : 0));
      }
      for (int k = 0; k < 4; k++) {
        cluster.create(
            SimCluster.runningPod(
                "batch",
                "queue-worker-" + shortName(n) + "-" + k,
                n.name(),
                "ReplicaSet",
                "queue-worker",
                Map.of("app", "queue-worker", "team", "media"),
                30,
                0));
      }
    }
    cluster.create(
        staticPod(
            "kube-system",
            "node-problem-detector-" + shortName(NODES.get(7)),
            NODES.get(7).name()));
    for (String pdb : List.of("llm-finetune")) {
      cluster.refreshPdbStatus("training", pdb);
    }
    cluster.refreshPdbStatus("inference", "vllm-llama");
    cluster.refreshPdbStatus("inference", "gateway");
    cluster.setTerminationTime(
        p ->
            switch (p.getMetadata().getNamespace()) {
              case "batch" -> Duration.ofSeconds(40);
              case "inference" -> Duration.ofSeconds(8);
              default -> Duration.ofSeconds(3);
            });
    cluster.enableReplacements(Duration.ofSeconds(15));
  }

  public static int podCount(SimCluster cluster) {
    int n = 0;
    for (NodeSpec node : NODES) {
      n += cluster.podsOn(node.name()).size();
    }
    return n;
  }

  private static String shortName(NodeSpec n) {
    return n.instanceId().substring(n.instanceId().length() - 4);
  }

  private static Pod finished(String ns, String name, String node) {
    return new PodBuilder(
            SimCluster.runningPod(
                ns, name, node, "Job", "preprocess", Map.of("job", "preprocess"), 30, 0))
        .editStatus()
        .withPhase("Succeeded")
        .withConditions(new ArrayList<>())
        .endStatus()
        .build();
  }

  private static Pod critical(String ns, String name, String node) {
    return new PodBuilder(
            SimCluster.runningPod(
                ns,
                name,
                node,
                "ReplicaSet",
                "coredns-5d78c9869d",
                Map.of("k8s-app", "kube-dns"),
                30,
                0))
        .editSpec()
        .withPriorityClassName("system-cluster-critical")
        .withPriority(2_000_000_000)
        .endSpec()
        .build();
  }

  private static Pod staticPod(String ns, String name, String node) {
    return new PodBuilder(
            SimCluster.runningPod(ns, name, node, "Node", node, Map.of("component", "npd"), 30, 0))
        .editMetadata()
        .addToAnnotations("kubernetes.io/config.mirror", "3f2a")
        .endMetadata()
        .build();
  }

  /**
   * The demo's Karpenter NodePools: gpu-training (p5 only, Spot and On-Demand, 32 GPUs) and
   * gpu-inference (categories g and p in one pool, 64 GPUs, no GPU-count requirement).
   */
  public static void populateNodePools(SimCluster cluster) {
    cluster.create(
        SimCluster.nodePool(
            "gpu-training",
            Map.of("nvidia.com/gpu", "32"),
            List.of(
                List.of("karpenter.k8s.aws/instance-family", "In", "p5"),
                List.of("karpenter.k8s.aws/instance-gpu-count", "Gt", "0"),
                List.of("karpenter.sh/capacity-type", "In", "spot", "on-demand"))));
    cluster.create(
        SimCluster.nodePool(
            "gpu-inference",
            Map.of("nvidia.com/gpu", "64"),
            List.of(
                List.of("karpenter.k8s.aws/instance-category", "In", "g", "p"),
                List.of("karpenter.sh/capacity-type", "In", "spot", "on-demand"))));
  }
}

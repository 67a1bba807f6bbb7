package io.gpufleet.sim.real;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * GPU nodes that kwok runs: it marks them Ready, keeps their leases, runs the pods scheduled on
 * them (Running + Ready) and finishes deleting pods marked for deletion, like kubelets would. They
 * look like EKS GPU nodes to the functions: providerID {@code aws:///<az>/<instance-id>}, {@code
 * nvidia.com/gpu} capacity, instance type and zone labels, and Karpenter ({@code
 * karpenter.sh/nodepool}, {@code karpenter.sh/capacity-type}) or managed node group ({@code
 * eks.amazonaws.com/nodegroup}) labels.
 */
public final class KwokNodes {
  /** The annotation kwok is started to manage nodes by. */
  public static final String MANAGED_ANNOTATION = "kwok.x-k8s.io/node";

  public static final String MANAGED_VALUE = "fake";

  /** Label scoping a node to one test's namespace; {@link RealNamespace} pods select it. */
  public static final String SCOPE_LABEL = "gpufleet.io/test-scope";

  private KwokNodes() {}

  /**
   * Pod annotations for kwok's pod stages: created and Ready after {@code readyAfter} (no random
   * jitter), deleted without the stage's default extra second once marked for deletion.
   */
  public static Map<String, String> podTiming(java.time.Duration readyAfter) {
    String ready = readyAfter.toMillis() + "ms";
    var out = new LinkedHashMap<String, String>();
    out.put("pod-create.stage.kwok.x-k8s.io/delay", "0s");
    out.put("pod-create.stage.kwok.x-k8s.io/jitter-delay", "0s");
    out.put("pod-ready.stage.kwok.x-k8s.io/delay", ready);
    out.put("pod-ready.stage.kwok.x-k8s.io/jitter-delay", ready);
    out.put("pod-delete.stage.kwok.x-k8s.io/delay", "0s");
    return out;
  }

  /** The shape of a GPU node; build it with {@link #node()}. */
  public record Spec(
      String name,
      String instanceId,
      String zone,
      String instanceType,
      String capacityType,
      String nodePool,
      String nodeGroup,
      int gpus,
      String scope) {

    /** A Karpenter-provisioned node of {@code nodePool}. */
    public static Spec karpenter(
        String name,
        String instanceId,
        String zone,
        String instanceType,
        String capacityType,
        String nodePool,
        int gpus) {
      return new Spec(
          name, instanceId, zone, instanceType, capacityType, nodePool, null, gpus, null);
    }

    /** A node of an EKS managed node group. */
    public static Spec nodeGroup(
        String name,
        String instanceId,
        String zone,
        String instanceType,
        String capacityType,
        String nodeGroup,
        int gpus) {
      return new Spec(
          name, instanceId, zone, instanceType, capacityType, null, nodeGroup, gpus, null);
    }

    public Spec scopedTo(String scope) {
      return new Spec(
          name, instanceId, zone, instanceType, capacityType, nodePool, nodeGroup, gpus, scope);
    }

    public Node node() {
      return gpuNode(this);
    }
  }

  static Node gpuNode(Spec s) {
    if (!s.instanceId().startsWith("i-")) {
      throw new IllegalArgumentException("instance id must look like i-..., got " + s.instanceId());
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/hostname", s.name());
    labels.put("kubernetes.io/os", "linux");
    labels.put("kubernetes.io/arch", "amd64");
    labels.put("type", "kwok");
    labels.put("node.kubernetes.io/instance-type", s.instanceType());
    labels.put("topology.kubernetes.io/zone", s.zone());
    labels.put("topology.kubernetes.io/region", s.zone().substring(0, s.zone().length() - 1));
    labels.put("nvidia.com/gpu.present", "true");
    if (s.nodePool() != null) {
      labels.put("karpenter.sh/nodepool", s.nodePool());
      labels.put("karpenter.sh/capacity-type", s.capacityType());
    }
    if (s.nodeGroup() != null) {
      labels.put("eks.amazonaws.com/nodegroup", s.nodeGroup());
      labels.put(
          "eks.amazonaws.com/capacityType", "spot".equals(s.capacityType()) ? "SPOT" : "ON_DEMAND");
    }
    if (s.scope() != null) {
      labels.put(SCOPE_LABEL, s.scope());
    }
    var resources = new LinkedHashMap<String, Quantity>();
    resources.put("cpu", new Quantity("48"));
    resources.put("memory", new Quantity("384Gi"));
    resources.put("ephemeral-storage", new Quantity("500Gi"));
    resources.put("pods", new Quantity("110"));
    resources.put("nvidia.com/gpu", new Quantity(Integer.toString(s.gpus())));
    return new NodeBuilder()
        .withNewMetadata()
        .withName(s.name())
        .withLabels(labels)
        .withAnnotations(Map.of(MANAGED_ANNOTATION, MANAGED_VALUE))
        .endMetadata()
        .withNewSpec()
        .withProviderID("aws:///" + s.zone() + "/" + s.instanceId())
        .endSpec()
        .withNewStatus()
        .withCapacity(resources)
        .withAllocatable(resources)
        .endStatus()
        .build();
  }
}

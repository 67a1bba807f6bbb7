package io.gpufleet.cost.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.cost.ClusterReader;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Lists nodes and bound pods (paged, 500 at a time) and maps what the report needs. */
public final class FabricClusterReader implements ClusterReader {
  /** Accelerator resources, in the order a node's own unit is chosen. */
  public static final List<String> ACCELERATORS =
      List.of(
          "nvidia.com/gpu",
          "aws.amazon.com/neurondevice",
          "aws.amazon.com/neuron",
          "aws.amazon.com/neuroncore");

  private final KubernetesClient client;
  private final String teamLabel;

  public FabricClusterReader(KubernetesClient client, String teamLabel) {
    this.client = client;
    this.teamLabel = teamLabel;
  }

  @Override
  public List<ClusterNode> nodes() {
    var out = new ArrayList<ClusterNode>();
    String cont = null;
    do {
      var page =
          client.nodes().list(new ListOptionsBuilder().withLimit(500L).withContinue(cont).build());
      page.getItems().forEach(n -> out.add(node(n)));
      cont = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (cont != null && !cont.isEmpty());
    return out;
  }

  @Override
  public List<ClusterPod> pods() {
    var out = new ArrayList<ClusterPod>();
    String cont = null;
    do {
      var page =
          client
              .pods()
              .inAnyNamespace()
              .list(
                  new ListOptionsBuilder()
                      .withLimit(500L)
                      .withContinue(cont)
                      .withFieldSelector("spec.nodeName!=")
                      .build());
      for (Pod p : page.getItems()) {
        var mapped = pod(p, teamLabel);
        if (mapped != null) {
          out.add(mapped);
        }
      }
      cont = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (cont != null && !cont.isEmpty());
    return out;
  }

  public static ClusterNode node(Node n) {
    var labels =
        n.getMetadata().getLabels() == null
            ? Map.<String, String>of()
            : n.getMetadata().getLabels();
    var status = n.getStatus();
    Map<String, Quantity> alloc =
        status == null
            ? Map.of()
            : status.getAllocatable() != null && !status.getAllocatable().isEmpty()
                ? status.getAllocatable()
                : status.getCapacity() == null ? Map.of() : status.getCapacity();
    String accel = null;
    int count = 0;
    for (String r : ACCELERATORS) {
      var q = alloc.get(r);
      if (q != null && Quantity.getAmountInBytes(q).signum() > 0) {
        accel = r;
        count = Quantity.getAmountInBytes(q).intValue();
        break;
      }
    }
    String providerId = n.getSpec() == null ? null : n.getSpec().getProviderID();
    String capacityType =
        labels.getOrDefault(
            "karpenter.sh/capacity-type", labels.get("eks.amazonaws.com/capacityType"));
    return new ClusterNode(
        n.getMetadata().getName(),
        providerId,
        ClusterNode.instanceIdOf(providerId),
        labels.getOrDefault(
            "node.kubernetes.io/instance-type", labels.get("beta.kubernetes.io/instance-type")),
        labels.getOrDefault(
            "topology.kubernetes.io/zone", labels.get("failure-domain.beta.kubernetes.io/zone")),
        capacityType,
        labels.get("karpenter.sh/nodepool"),
        labels.get("eks.amazonaws.com/nodegroup"),
        instant(n.getMetadata().getCreationTimestamp()),
        count,
        accel,
        millis(alloc.get("cpu")),
        bytes(alloc.get("memory")));
  }

  /** Null for pods that never ran (no start time) or are not bound. */
  public static ClusterPod pod(Pod p, String teamLabel) {
    var spec = p.getSpec();
    var status = p.getStatus();
    if (spec == null || spec.getNodeName() == null) {
      return null;
    }
    Instant started =
        status != null && status.getStartTime() != null
            ? instant(status.getStartTime())
            : instant(p.getMetadata().getCreationTimestamp());
    if (started == null) {
      return null;
    }
    String phase = status == null ? null : status.getPhase();
    Instant finished = null;
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      finished = finishedAt(p);
      if (finished == null) {
        return null; // done, but when is unknown: do not guess
      }
    }
    var accel = new HashMap<String, Double>();
    long cpu = 0;
    long mem = 0;
    for (Container c : spec.getContainers()) {
      cpu += millis(request(c, "cpu"));
      mem += bytes(request(c, "memory"));
      for (String r : ACCELERATORS) {
        var q = request(c, r);
        if (q != null) {
          accel.merge(r, Quantity.getAmountInBytes(q).doubleValue(), Double::sum);
        }
      }
    }
    // init containers run one at a time before the app containers: the pod needs the larger
    if (spec.getInitContainers() != null) {
      for (Container c : spec.getInitContainers()) {
        cpu = Math.max(cpu, millis(request(c, "cpu")));
        mem = Math.max(mem, bytes(request(c, "memory")));
        for (String r : ACCELERATORS) {
          var q = request(c, r);
          if (q != null) {
            accel.merge(r, Quantity.getAmountInBytes(q).doubleValue(), Math::max);
          }
        }
      }
    }
    if (spec.getOverhead() != null) {
      cpu += millis(spec.getOverhead().get("cpu"));
      mem += bytes(spec.getOverhead().get("memory"));
    }
    var labels = p.getMetadata().getLabels();
    return new ClusterPod(
        p.getMetadata().getNamespace(),
        p.getMetadata().getName(),
        p.getMetadata().getUid() != null
            ? p.getMetadata().getUid()
            : p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(),
        spec.getNodeName(),
        labels == null ? null : labels.get(teamLabel),
        accel,
        cpu,
        mem,
        started,
        finished);
  }

  /** requests, else limits (Kubernetes defaults requests of extended resources to limits). */
  private static Quantity request(Container c, String resource) {
    var res = c.getResources();
    if (res == null) {
      return null;
    }
    if (res.getRequests() != null && res.getRequests().containsKey(resource)) {
      return res.getRequests().get(resource);
    }
    return res.getLimits() == null ? null : res.getLimits().get(resource);
  }

  private static Instant finishedAt(Pod p) {
    Instant last = null;
    if (p.getStatus().getContainerStatuses() == null) {
      return null;
    }
    for (var cs : p.getStatus().getContainerStatuses()) {
      if (cs.getState() != null && cs.getState().getTerminated() != null) {
        Instant t = instant(cs.getState().getTerminated().getFinishedAt());
        if (t != null && (last == null || t.isAfter(last))) {
          last = t;
        }
      }
    }
    return last;
  }

  private static long millis(Quantity q) {
    return q == null
        ? 0
        : Quantity.getAmountInBytes(q).multiply(BigDecimal.valueOf(1000)).longValue();
  }

  private static long bytes(Quantity q) {
    return q == null ? 0 : Quantity.getAmountInBytes(q).longValue();
  }

  private static Instant instant(String text) {
    return text == null || text.isBlank() ? null : Instant.parse(text);
  }
}

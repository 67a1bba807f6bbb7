package io.gpufleet.cost.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Core API nodes and pods as read untyped (see {@link CostClusterAdapter}), mapped to what the
 * report needs: a node's instance, zone, pool, allocatable CPU, memory and accelerators; a pod's
 * effective requests and when it ran.
 */
final class CoreObjects {
  /** Accelerator resources, in the order a node's own unit is chosen. */
  static final List<String> ACCELERATORS =
      List.of(
          "nvidia.com/gpu",
          "aws.amazon.com/neurondevice",
          "aws.amazon.com/neuron",
          "aws.amazon.com/neuroncore");

  private CoreObjects() {}

  /**
   * One node as the API server sent it. Read as plain maps, not fabric8's typed {@code Node}: the
   * typed model's deserializers load most of the core API's ~900 classes on a fresh JVM, for the
   * dozen fields used here.
   */
  static ClusterNode node(GenericKubernetesResource n) {
    var meta = n.getMetadata();
    var labels = meta.getLabels() == null ? Map.<String, String>of() : meta.getLabels();
    var status = Untyped.object(n.getAdditionalProperties().get("status"));
    Map<String, Object> alloc = Untyped.object(status.get("allocatable"));
    if (alloc.isEmpty()) {
      alloc = Untyped.object(status.get("capacity"));
    }
    String accel = null;
    int count = 0;
    for (String r : ACCELERATORS) {
      var q = quantity(alloc.get(r));
      if (q != null && Quantity.getAmountInBytes(q).signum() > 0) {
        accel = r;
        count = Quantity.getAmountInBytes(q).intValue();
        break;
      }
    }
    String providerId =
        Untyped.text(Untyped.object(n.getAdditionalProperties().get("spec")).get("providerID"));
    String capacityType =
        labels.getOrDefault(
            "karpenter.sh/capacity-type", labels.get("eks.amazonaws.com/capacityType"));
    var gpuResources = new java.util.TreeMap<String, Integer>();
    alloc.forEach(
        (k, v) -> {
          var q = quantity(v);
          if (k.startsWith("nvidia.com/") && q != null) {
            int amount = Quantity.getAmountInBytes(q).intValue();
            if (amount > 0) {
              gpuResources.put(k, amount);
            }
          }
        });
    var gpuLabels = new java.util.TreeMap<String, String>();
    labels.forEach(
        (k, v) -> {
          if (k.startsWith("nvidia.com/")) {
            gpuLabels.put(k, v);
          }
        });
    return new ClusterNode(
        meta.getName(),
        providerId,
        ClusterNode.instanceIdOf(providerId),
        labels.getOrDefault(
            "node.kubernetes.io/instance-type", labels.get("beta.kubernetes.io/instance-type")),
        labels.getOrDefault(
            "topology.kubernetes.io/zone", labels.get("failure-domain.beta.kubernetes.io/zone")),
        capacityType,
        labels.get("karpenter.sh/nodepool"),
        labels.get("eks.amazonaws.com/nodegroup"),
        instant(meta.getCreationTimestamp()),
        count,
        accel,
        millis(quantity(alloc.get("cpu"))),
        bytes(quantity(alloc.get("memory"))),
        gpuResources,
        gpuLabels);
  }

  /** Null for pods that never ran (no start time) or are not bound (plain maps: see node). */
  static ClusterPod pod(GenericKubernetesResource p, String teamLabel) {
    var meta = p.getMetadata();
    var props = p.getAdditionalProperties();
    var spec = Untyped.object(props.get("spec"));
    var status = Untyped.object(props.get("status"));
    String nodeName = Untyped.text(spec.get("nodeName"));
    if (nodeName == null) {
      return null;
    }
    String startTime = Untyped.text(status.get("startTime"));
    Instant started = startTime != null ? instant(startTime) : instant(meta.getCreationTimestamp());
    if (started == null) {
      return null;
    }
    String phase = Untyped.text(status.get("phase"));
    Instant finished = null;
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      finished = finishedAt(status);
      if (finished == null) {
        return null; // done, but when is unknown: do not guess
      }
    }
    var accel = new HashMap<String, Double>();
    long cpu = 0;
    long mem = 0;
    for (Map<String, Object> c : Untyped.objects(spec.get("containers"))) {
      cpu += millis(request(c, "cpu"));
      mem += bytes(request(c, "memory"));
      for (String r : acceleratorsOf(c)) {
        var q = request(c, r);
        if (q != null) {
          accel.merge(r, Quantity.getAmountInBytes(q).doubleValue(), Double::sum);
        }
      }
    }
    // init containers run one at a time before the app containers: the pod needs the larger
    for (Map<String, Object> c : Untyped.objects(spec.get("initContainers"))) {
      cpu = Math.max(cpu, millis(request(c, "cpu")));
      mem = Math.max(mem, bytes(request(c, "memory")));
      for (String r : acceleratorsOf(c)) {
        var q = request(c, r);
        if (q != null) {
          accel.merge(r, Quantity.getAmountInBytes(q).doubleValue(), Math::max);
        }
      }
    }
    var overhead = Untyped.object(spec.get("overhead"));
    cpu += millis(quantity(overhead.get("cpu")));
    mem += bytes(quantity(overhead.get("memory")));
    var labels = meta.getLabels();
    return new ClusterPod(
        meta.getNamespace(),
        meta.getName(),
        meta.getUid() != null ? meta.getUid() : meta.getNamespace() + "/" + meta.getName(),
        nodeName,
        labels == null ? null : labels.get(teamLabel),
        accel,
        cpu,
        mem,
        started,
        finished);
  }

  /** The Neuron resources and every nvidia.com/* resource (MIG profiles, shared GPUs) asked for. */
  private static java.util.Set<String> acceleratorsOf(Map<String, Object> container) {
    var out = new java.util.LinkedHashSet<String>(ACCELERATORS);
    var res = Untyped.object(container.get("resources"));
    for (String kind : List.of("requests", "limits")) {
      Untyped.object(res.get(kind)).keySet().stream()
          .filter(k -> k.startsWith("nvidia.com/"))
          .forEach(out::add);
    }
    return out;
  }

  /** requests, else limits (Kubernetes defaults requests of extended resources to limits). */
  private static Quantity request(Map<String, Object> container, String resource) {
    var res = Untyped.object(container.get("resources"));
    var requests = Untyped.object(res.get("requests"));
    if (requests.containsKey(resource)) {
      return quantity(requests.get(resource));
    }
    return quantity(Untyped.object(res.get("limits")).get(resource));
  }

  private static Instant finishedAt(Map<String, Object> status) {
    Instant last = null;
    if (status.get("containerStatuses") == null) {
      return null;
    }
    for (Map<String, Object> cs : Untyped.objects(status.get("containerStatuses"))) {
      var terminated = Untyped.object(Untyped.object(cs.get("state")).get("terminated"));
      if (!terminated.isEmpty()) {
        Instant t = instant(Untyped.text(terminated.get("finishedAt")));
        if (t != null && (last == null || t.isAfter(last))) {
          last = t;
        }
      }
    }
    return last;
  }

  /** A quantity as fabric8's own deserializer reads one written as text (or a bare number). */
  private static Quantity quantity(Object value) {
    return value == null ? null : new Quantity(value.toString());
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

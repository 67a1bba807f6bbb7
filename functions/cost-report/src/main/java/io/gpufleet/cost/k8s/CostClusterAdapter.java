package io.gpufleet.cost.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpufleet.cost.CostClusterPort;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Lists nodes and bound pods (paged, 500 at a time) and maps what the report needs. */
public final class CostClusterAdapter implements CostClusterPort {
  /** Accelerator resources, in the order a node's own unit is chosen. */
  public static final List<String> ACCELERATORS =
      List.of(
          "nvidia.com/gpu",
          "aws.amazon.com/neurondevice",
          "aws.amazon.com/neuron",
          "aws.amazon.com/neuroncore");

  private final KubernetesClient client;
  private final String teamLabel;
  private final java.util.Set<String> notes = java.util.concurrent.ConcurrentHashMap.newKeySet();

  public CostClusterAdapter(KubernetesClient client, String teamLabel) {
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
    var dra = DraDevices.advertised(slices());
    if (dra.isEmpty()) {
      return out;
    }
    var merged = new ArrayList<ClusterNode>(out.size());
    for (ClusterNode n : out) {
      var extra = dra.get(n.name());
      if (extra == null) {
        merged.add(n);
        continue;
      }
      var res = new java.util.TreeMap<>(n.gpuResources());
      res.putAll(extra);
      merged.add(
          new ClusterNode(
              n.name(),
              n.providerId(),
              n.instanceId(),
              n.instanceType(),
              n.zone(),
              n.capacityTypeLabel(),
              n.nodePool(),
              n.nodeGroup(),
              n.createdAt(),
              n.accelerators(),
              n.acceleratorResource(),
              n.cpuMillis(),
              n.memoryBytes(),
              res,
              n.gpuLabels()));
    }
    return merged;
  }

  @Override
  public List<String> notes() {
    return List.copyOf(new java.util.TreeSet<>(notes));
  }

  /** ResourceSlices (resource.k8s.io/v1); empty, with a note, where DRA is not served or denied. */
  private List<ResourceSlice> slices() {
    return draList(ResourceSlice.class, "ResourceSlices");
  }

  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> List<T> draList(
      Class<T> type, String what) {
    try {
      var out = new ArrayList<T>();
      String cont = null;
      do {
        var opts = new ListOptionsBuilder().withLimit(500L).withContinue(cont).build();
        var page =
            io.fabric8.kubernetes.api.model.Namespaced.class.isAssignableFrom(type)
                ? client.resources(type).inAnyNamespace().list(opts)
                : client.resources(type).list(opts);
        out.addAll(page.getItems());
        cont = page.getMetadata() == null ? null : page.getMetadata().getContinue();
      } while (cont != null && !cont.isEmpty());
      return out;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        notes.add("DRA (resource.k8s.io/v1) is not served by this cluster: no DRA GPUs counted");
      } else if (e.getCode() == 403) {
        notes.add(
            "no permission to list "
                + what
                + " (resource.k8s.io/v1): GPUs allocated through DRA are not counted; apply"
                + " deploy/rbac/cost-report.yaml");
      } else {
        throw e;
      }
      return List.of();
    }
  }

  @Override
  public List<ClusterPod> pods() {
    var out = new ArrayList<ClusterPod>();
    var claimOwners = new HashMap<String, List<String>>();
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
          owners(p, claimOwners);
        }
      }
      cont = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (cont != null && !cont.isEmpty());
    var claims = draList(ResourceClaim.class, "ResourceClaims");
    if (claims.isEmpty()) {
      return out;
    }
    var claimed = DraDevices.claimed(claims, DraDevices.index(slices()), claimOwners);
    if (claimed.isEmpty()) {
      return out;
    }
    var merged = new ArrayList<ClusterPod>(out.size());
    for (ClusterPod p : out) {
      var extra = claimed.get(p.uid());
      if (extra == null) {
        merged.add(p);
        continue;
      }
      var acc = new HashMap<>(p.accelerators());
      extra.forEach((k, v) -> acc.merge(k, v, Double::sum));
      merged.add(
          new ClusterPod(
              p.namespace(),
              p.name(),
              p.uid(),
              p.nodeName(),
              p.team(),
              acc,
              p.cpuMillis(),
              p.memoryBytes(),
              p.startedAt(),
              p.finishedAt()));
    }
    return merged;
  }

  /** namespace/claim → uids of the pods that use it, from the pod's own fields. */
  private static void owners(Pod p, Map<String, List<String>> out) {
    String ns = p.getMetadata().getNamespace();
    String uid = p.getMetadata().getUid();
    if (uid == null) {
      return;
    }
    var names = new java.util.LinkedHashSet<String>();
    if (p.getStatus() != null && p.getStatus().getResourceClaimStatuses() != null) {
      p.getStatus().getResourceClaimStatuses().stream()
          .filter(s -> s.getResourceClaimName() != null)
          .forEach(s -> names.add(s.getResourceClaimName()));
    }
    if (p.getSpec() != null && p.getSpec().getResourceClaims() != null) {
      p.getSpec().getResourceClaims().stream()
          .filter(c -> c.getResourceClaimName() != null)
          .forEach(c -> names.add(c.getResourceClaimName()));
    }
    names.forEach(n -> out.computeIfAbsent(ns + "/" + n, k -> new ArrayList<>()).add(uid));
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
    var gpuResources = new java.util.TreeMap<String, Integer>();
    alloc.forEach(
        (k, q) -> {
          if (k.startsWith("nvidia.com/") && q != null) {
            int v = Quantity.getAmountInBytes(q).intValue();
            if (v > 0) {
              gpuResources.put(k, v);
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
        bytes(alloc.get("memory")),
        gpuResources,
        gpuLabels);
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
      for (String r : acceleratorsOf(c)) {
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
        for (String r : acceleratorsOf(c)) {
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

  /** The Neuron resources and every nvidia.com/* resource (MIG profiles, shared GPUs) asked for. */
  private static java.util.Set<String> acceleratorsOf(Container c) {
    var out = new java.util.LinkedHashSet<String>(ACCELERATORS);
    var res = c.getResources();
    if (res != null) {
      for (var m : java.util.Arrays.asList(res.getRequests(), res.getLimits())) {
        if (m != null) {
          m.keySet().stream().filter(k -> k.startsWith("nvidia.com/")).forEach(out::add);
        }
      }
    }
    return out;
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

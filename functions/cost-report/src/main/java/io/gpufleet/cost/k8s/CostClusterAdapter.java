package io.gpufleet.cost.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
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

  // nodes and pods are read untyped (see node): the core API's contexts, so no discovery call
  private static final ResourceDefinitionContext NODES = core("Node", "nodes", false);
  private static final ResourceDefinitionContext PODS = core("Pod", "pods", true);
  private static final ResourceDefinitionContext SLICES =
      context("resource.k8s.io", "ResourceSlice", "resourceslices", false);
  private static final ResourceDefinitionContext CLAIMS =
      context("resource.k8s.io", "ResourceClaim", "resourceclaims", true);

  private final KubernetesClient client;
  private final String teamLabel;
  private final java.util.Set<String> notes = java.util.concurrent.ConcurrentHashMap.newKeySet();

  public CostClusterAdapter(KubernetesClient client, String teamLabel) {
    this.client = client;
    this.teamLabel = teamLabel;
  }

  private static ResourceDefinitionContext core(String kind, String plural, boolean namespaced) {
    return context("", kind, plural, namespaced);
  }

  private static ResourceDefinitionContext context(
      String group, String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion("v1")
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }

  @Override
  public List<ClusterNode> nodes() {
    var out = new ArrayList<ClusterNode>();
    String cont = null;
    do {
      var page =
          client
              .genericKubernetesResources(NODES)
              .list(new ListOptionsBuilder().withLimit(500L).withContinue(cont).build());
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
    return draList(SLICES, "ResourceSlices").stream().map(DraObjects::slice).toList();
  }

  private List<GenericKubernetesResource> draList(ResourceDefinitionContext type, String what) {
    try {
      var out = new ArrayList<GenericKubernetesResource>();
      String cont = null;
      do {
        var opts = new ListOptionsBuilder().withLimit(500L).withContinue(cont).build();
        var page =
            type.isNamespaceScoped()
                ? client.genericKubernetesResources(type).inAnyNamespace().list(opts)
                : client.genericKubernetesResources(type).list(opts);
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
              .genericKubernetesResources(PODS)
              .inAnyNamespace()
              .list(
                  new ListOptionsBuilder()
                      .withLimit(500L)
                      .withContinue(cont)
                      .withFieldSelector("spec.nodeName!=")
                      .build());
      for (GenericKubernetesResource p : page.getItems()) {
        var mapped = pod(p, teamLabel);
        if (mapped != null) {
          out.add(mapped);
          owners(p, claimOwners);
        }
      }
      cont = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (cont != null && !cont.isEmpty());
    var claims = draList(CLAIMS, "ResourceClaims").stream().map(DraObjects::claim).toList();
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
  private static void owners(GenericKubernetesResource p, Map<String, List<String>> out) {
    String ns = p.getMetadata().getNamespace();
    String uid = p.getMetadata().getUid();
    if (uid == null) {
      return;
    }
    var names = new java.util.LinkedHashSet<String>();
    var props = p.getAdditionalProperties();
    for (var claims :
        List.of(
            Untyped.objects(Untyped.object(props.get("status")).get("resourceClaimStatuses")),
            Untyped.objects(Untyped.object(props.get("spec")).get("resourceClaims")))) {
      for (var c : claims) {
        String name = Untyped.text(c.get("resourceClaimName"));
        if (name != null) {
          names.add(name);
        }
      }
    }
    names.forEach(n -> out.computeIfAbsent(ns + "/" + n, k -> new ArrayList<>()).add(uid));
  }

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

  /**
   * Builds, without any request, what the first report's reads need from a client's JSON mapper:
   * the untyped node and pod lists (the Kubernetes model's metadata) and their mapping here. The
   * INIT warm-up thread runs it on the mapping every client shares ({@code
   * KubeClients.serialization()}), so the first report reads with it ready. No network,
   * credentials, tokens, randomness or clock.
   */
  public static void prime(KubernetesSerialization json) {
    json.unmarshal(SAMPLE_NODES, GenericKubernetesResourceList.class)
        .getItems()
        .forEach(CostClusterAdapter::node);
    json.unmarshal(SAMPLE_PODS, GenericKubernetesResourceList.class)
        .getItems()
        .forEach(p -> pod(p, "team"));
  }

  private static final String SAMPLE_NODES =
      """
      {"apiVersion":"v1","kind":"NodeList","metadata":{"resourceVersion":"1"},
       "items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n","uid":"u",
       "resourceVersion":"1","creationTimestamp":"1970-01-01T00:00:00Z",
       "labels":{"node.kubernetes.io/instance-type":"g6e.12xlarge","nvidia.com/gpu.product":"L40S"},
       "annotations":{"a":"b"},"managedFields":[{"manager":"m","operation":"Update",
       "apiVersion":"v1","time":"1970-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{}}]},
       "spec":{"providerID":"aws:///us-east-1a/i-0"},
       "status":{"allocatable":{"cpu":"48","memory":"1Gi","nvidia.com/gpu":"4"}}}]}
      """;

  private static final String SAMPLE_PODS =
      """
      {"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"1","continue":""},
       "items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","uid":"u",
       "resourceVersion":"1","creationTimestamp":"1970-01-01T00:00:00Z","labels":{"team":"t"},
       "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"u",
       "controller":true,"blockOwnerDeletion":true}]},
       "spec":{"nodeName":"n","containers":[{"name":"c","image":"i",
       "resources":{"requests":{"cpu":"1","memory":"1Gi","nvidia.com/gpu":"1"}}}]},
       "status":{"phase":"Running","startTime":"1970-01-01T00:00:00Z"}}]}
      """;

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

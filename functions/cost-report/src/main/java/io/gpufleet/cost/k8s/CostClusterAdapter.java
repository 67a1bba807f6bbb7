package io.gpufleet.cost.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpufleet.cost.CostClusterPort;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** Lists nodes and bound pods (paged, 500 at a time) and maps what the report needs. */
public final class CostClusterAdapter implements CostClusterPort {
  /** Accelerator resources, in the order a node's own unit is chosen. */
  public static final List<String> ACCELERATORS = CoreObjects.ACCELERATORS;

  // nodes and pods are read untyped (see CoreObjects.node): the core API's contexts, so no
  // discovery call
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
    list(NODES, null, n -> out.add(CoreObjects.node(n)));
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
      merged.add(n.withGpuResources(res));
    }
    return merged;
  }

  /** Every object of {@code type} (in every namespace where it is namespaced), 500 a page. */
  private void list(
      ResourceDefinitionContext type,
      String fieldSelector,
      Consumer<GenericKubernetesResource> each) {
    String cont = null;
    do {
      var opts =
          new ListOptionsBuilder()
              .withLimit(500L)
              .withContinue(cont)
              .withFieldSelector(fieldSelector)
              .build();
      var page =
          type.isNamespaceScoped()
              ? client.genericKubernetesResources(type).inAnyNamespace().list(opts)
              : client.genericKubernetesResources(type).list(opts);
      page.getItems().forEach(each);
      cont = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (cont != null && !cont.isEmpty());
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
      list(type, null, out::add);
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
    list(
        PODS,
        "spec.nodeName!=",
        p -> {
          var mapped = CoreObjects.pod(p, teamLabel);
          if (mapped != null) {
            out.add(mapped);
            owners(p, claimOwners);
          }
        });
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
      merged.add(p.withAccelerators(acc));
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
   * Builds, without any request, what the first report's reads need from a client's JSON mapper:
   * the untyped node and pod lists (the Kubernetes model's metadata) and their mapping here. The
   * INIT warm-up thread runs it on the mapping every client shares ({@code
   * KubeClients.serialization()}), so the first report reads with it ready. No network,
   * credentials, tokens, randomness or clock.
   */
  public static void prime(KubernetesSerialization json) {
    json.unmarshal(SAMPLE_NODES, GenericKubernetesResourceList.class)
        .getItems()
        .forEach(CoreObjects::node);
    json.unmarshal(SAMPLE_PODS, GenericKubernetesResourceList.class)
        .getItems()
        .forEach(p -> CoreObjects.pod(p, "team"));
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
}

package io.gpufleet.drain.k8s;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PreconditionsBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.KubeEvents;
import io.gpufleet.core.k8s.LabelSelectors;
import io.gpufleet.drain.DrainClusterPort;
import io.gpufleet.drain.InstanceLookupPort;
import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.NodeChange;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * {@link DrainClusterPort} over fabric8. Node lookups are cached by instance id and re-verified.
 */
public final class DrainClusterAdapter implements DrainClusterPort {
  static final int PAGE = 500;
  static final int READ_ATTEMPTS = 3;
  static final long READ_BACKOFF_MS = 100;

  /** Requests in flight at once across all drains of this container (bounds connections). */
  public static final int DEFAULT_MAX_IN_FLIGHT = 256;

  /**
   * Nodes and pods are read as generic resources (maps) and mapped field by field: the typed
   * Node/Pod models cost a cold JVM hundreds of milliseconds of deserializer construction for the
   * handful of fields the drain uses.
   */
  static final ResourceDefinitionContext NODES =
      new ResourceDefinitionContext.Builder()
          .withGroup("")
          .withVersion("v1")
          .withKind("Node")
          .withPlural("nodes")
          .withNamespaced(false)
          .build();

  static final ResourceDefinitionContext PODS =
      new ResourceDefinitionContext.Builder()
          .withGroup("")
          .withVersion("v1")
          .withKind("Pod")
          .withPlural("pods")
          .withNamespaced(true)
          .build();

  private final KubernetesClient client;
  private final PodNoticeAdapter notices;
  private final java.util.concurrent.Semaphore inFlight;
  private final Object listingLock = new Object();
  private final java.util.concurrent.atomic.AtomicLong listings =
      new java.util.concurrent.atomic.AtomicLong();
  private volatile Map<String, NodeInfo> lastListed = new ConcurrentHashMap<>();

  public DrainClusterAdapter(KubernetesClient client) {
    this(client, DEFAULT_MAX_IN_FLIGHT);
  }

  public DrainClusterAdapter(KubernetesClient client, int maxInFlight) {
    this.client = client;
    this.notices = new PodNoticeAdapter(client);
    this.inFlight = new java.util.concurrent.Semaphore(maxInFlight);
  }

  /**
   * Builds, without any request, what the first invocation's reads and writes need from the
   * client's JSON mapper: deserializers for node, pod, PodDisruptionBudget and Event answers and
   * serializers for evictions and events. No network, credentials, tokens, randomness or clock.
   */
  public void prime() {
    prime(client.getKubernetesSerialization());
  }

  /**
   * The same on any mapper: the INIT warm-up thread runs it on the mapping every client shares
   * ({@code KubeClients.serialization()}) while the main thread builds the client.
   */
  public static void prime(KubernetesSerialization json) {
    GenericKubernetesResourceList pods =
        json.unmarshal(SAMPLE_PODS, GenericKubernetesResourceList.class);
    pods.getItems().forEach(DrainClusterAdapter::toPod);
    GenericKubernetesResourceList nodes =
        json.unmarshal(SAMPLE_NODES, GenericKubernetesResourceList.class);
    nodes.getItems().forEach(DrainClusterAdapter::toNode);
    json.unmarshal(json.asJson(nodes.getItems().get(0)), GenericKubernetesResource.class);
    json.unmarshal(
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudgetList\",\"items\":[]}",
        io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetList.class);
    json.asJson(
        new EvictionBuilder()
            .withNewMetadata()
            .withName("prime")
            .withNamespace("prime")
            .endMetadata()
            .withDeleteOptions(
                new DeleteOptionsBuilder()
                    .withGracePeriodSeconds(0L)
                    .withPreconditions(new PreconditionsBuilder().withUid("prime").build())
                    .build())
            .build());
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withName("prime")
            .withNamespace("default")
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withKind("Node")
                    .withName("prime")
                    .withApiVersion("v1")
                    .build())
            .withType("Normal")
            .withReason("Prime")
            .withMessage("prime")
            .withNewSource()
            .withComponent("gpufleet-interruption-drain")
            .endSource()
            .withFirstTimestamp("1970-01-01T00:00:00Z")
            .withLastTimestamp("1970-01-01T00:00:00Z")
            .withCount(1)
            .build();
    json.unmarshal(json.asJson(event), io.fabric8.kubernetes.api.model.Event.class);
  }

  private static final String SAMPLE_PODS =
      """
      {"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"1","continue":""},
       "items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","uid":"u",
       "resourceVersion":"1","creationTimestamp":"1970-01-01T00:00:00Z","labels":{"a":"b"},
       "annotations":{"a":"b"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet",
       "name":"r","uid":"u","controller":true,"blockOwnerDeletion":true}]},
       "spec":{"nodeName":"n","priority":0,"priorityClassName":"c",
       "terminationGracePeriodSeconds":30,"containers":[{"name":"c","image":"i"}]},
       "status":{"phase":"Running"}}]}
      """;

  private static final String SAMPLE_NODES =
      """
      {"apiVersion":"v1","kind":"NodeList","metadata":{"resourceVersion":"1"},
       "items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n","uid":"u",
       "resourceVersion":"1","labels":{"a":"b"},"annotations":{"a":"b"}},
       "spec":{"providerID":"aws:///z/i-0","unschedulable":true,
       "taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},
       "status":{"conditions":[{"type":"Ready","status":"True"}]}}]}
      """;

  private <T> T limited(Supplier<T> call) {
    inFlight.acquireUninterruptibly();
    try {
      return call.get();
    } finally {
      inFlight.release();
    }
  }

  /**
   * From the last listing when the instance is in it (no request: the claim patch is guarded by
   * resourceVersion, so a stale copy costs one 409 and a re-read), else from a fresh listing that
   * concurrent lookups share.
   */
  @Override
  public Optional<NodeInfo> findNodeByInstanceId(String instanceId) {
    NodeInfo known = lastListed.get(instanceId);
    if (known != null) {
      return Optional.of(known);
    }
    Optional<NodeInfo> named = byInstanceName(instanceId);
    if (named.isPresent()) {
      return named;
    }
    long seen = listings.get();
    synchronized (listingLock) {
      if (listings.get() == seen) {
        listNodes();
        listings.incrementAndGet();
      }
      return Optional.ofNullable(lastListed.get(instanceId));
    }
  }

  private volatile InstanceLookupPort directory = InstanceLookupPort.NONE;

  @Override
  public void useInstanceDirectory(InstanceLookupPort directory) {
    this.directory = directory;
  }

  /**
   * One GET of the node EC2 names for the instance (its private DNS name), kept only when its
   * providerID carries the instance; empty on any miss or failure (the caller lists the nodes).
   */
  private Optional<NodeInfo> byInstanceName(String instanceId) {
    Optional<InstanceLookupPort.Instance> instance;
    try {
      instance = directory.describe(instanceId);
    } catch (RuntimeException failed) {
      return Optional.empty();
    }
    String name = instance.map(InstanceLookupPort.Instance::privateDnsName).orElse("");
    if (name.isBlank()) {
      return Optional.empty();
    }
    Optional<NodeInfo> node;
    try {
      node = getNode(name);
    } catch (RuntimeException failed) {
      return Optional.empty();
    }
    if (node.isPresent() && carries(node.get().providerId(), instanceId)) {
      lastListed.put(instanceId, node.get());
      return node;
    }
    return Optional.empty();
  }

  /** aws:///&lt;az&gt;/&lt;instanceId&gt; (or aws:///&lt;instanceId&gt;) names this instance. */
  static boolean carries(String providerId, String instanceId) {
    return providerId != null
        && providerId.startsWith("aws://")
        && providerId.endsWith("/" + instanceId);
  }

  @Override
  public Optional<NodeInfo> knownNode(String instanceId) {
    return Optional.ofNullable(lastListed.get(instanceId));
  }

  @Override
  public List<NodeInfo> nodesInCapacityReservation(String reservationId) {
    GenericKubernetesResourceList list =
        read(
            "list nodes of capacity reservation " + reservationId,
            () ->
                client
                    .genericKubernetesResources(NODES)
                    .withLabel(CAPACITY_RESERVATION_LABEL, reservationId)
                    .list());
    return list.getItems().stream().map(DrainClusterAdapter::toNode).toList();
  }

  private void listNodes() {
    var listed = new java.util.HashMap<String, NodeInfo>();
    String continueToken = null;
    do {
      String token = continueToken;
      GenericKubernetesResourceList page =
          read(
              "list nodes",
              () ->
                  client
                      .genericKubernetesResources(NODES)
                      .list(
                          new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
                              .withLimit((long) PAGE)
                              .withContinue(token)
                              .build()));
      for (GenericKubernetesResource n : page.getItems()) {
        String pid = providerId(n);
        if (pid != null) {
          String id = pid.substring(pid.lastIndexOf('/') + 1);
          listed.put(id, toNode(n));
        }
      }
      continueToken = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (continueToken != null && !continueToken.isEmpty());
    lastListed = new ConcurrentHashMap<>(listed);
  }

  @Override
  public Optional<NodeInfo> getNode(String name) {
    GenericKubernetesResource node =
        read(
            "get node " + name,
            () -> client.genericKubernetesResources(NODES).withName(name).get());
    return Optional.ofNullable(node).map(DrainClusterAdapter::toNode);
  }

  @Override
  public boolean nodeReady(String name) {
    GenericKubernetesResource node =
        read(
            "get node " + name,
            () -> client.genericKubernetesResources(NODES).withName(name).get());
    if (node == null) {
      return false;
    }
    Map<String, Object> status = map(node.getAdditionalProperties().get("status"));
    if (status == null || !(status.get("conditions") instanceof List<?> conditions)) {
      return false;
    }
    return conditions.stream()
        .map(DrainClusterAdapter::map)
        .anyMatch(
            c -> c != null && "Ready".equals(c.get("type")) && "True".equals(c.get("status")));
  }

  @Override
  public boolean patchNode(NodeInfo node, NodeChange change) {
    var metadata = new LinkedHashMap<String, Object>();
    if (change.guarded()) {
      metadata.put("resourceVersion", node.resourceVersion());
    }
    if (!change.labels().isEmpty()) {
      metadata.put("labels", change.labels());
    }
    if (!change.annotations().isEmpty()) {
      metadata.put("annotations", change.annotations());
    }
    var spec = new LinkedHashMap<String, Object>();
    if (change.cordon()) {
      spec.put("unschedulable", true);
    }
    if (change.addTaint() != null) {
      // A merge patch replaces the list: send what is there plus ours (guarded by resourceVersion).
      var taints = new ArrayList<Map<String, String>>();
      for (var t : node.taints()) {
        taints.add(taint(t));
      }
      taints.add(taint(change.addTaint()));
      spec.put("taints", taints);
    }
    var patch = new LinkedHashMap<String, Object>();
    patch.put("metadata", metadata);
    if (!spec.isEmpty()) {
      patch.put("spec", spec);
    }
    try {
      // Node patches bypass the in-flight limit: a cordon must not queue behind other drains'
      // evictions.
      GenericKubernetesResource patched =
          client
              .genericKubernetesResources(NODES)
              .withName(node.name())
              .patch(PatchContext.of(PatchType.JSON_MERGE), Json.write(patch));
      if (patched != null && providerId(patched) != null) {
        String pid = providerId(patched);
        lastListed.computeIfPresent(
            pid.substring(pid.lastIndexOf('/') + 1), (id, old) -> toNode(patched));
      }
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409 || e.getCode() == 404) {
        // changed (or gone) since it was read: the caller re-reads
        return false;
      }
      throw unavailable("patch node " + node.name(), e);
    }
  }

  private static Map<String, String> taint(NodeInfo.Taint t) {
    var m = new LinkedHashMap<String, String>();
    m.put("key", t.key());
    if (t.value() != null) {
      m.put("value", t.value());
    }
    m.put("effect", t.effect());
    return m;
  }

  @Override
  public List<PodInfo> podsOnNode(String nodeName) {
    var list =
        read(
            "list pods on " + nodeName,
            () ->
                client
                    .genericKubernetesResources(PODS)
                    .inAnyNamespace()
                    .withField("spec.nodeName", nodeName)
                    .list());
    return list.getItems().stream().map(DrainClusterAdapter::toPod).toList();
  }

  @Override
  public EvictionResult evict(PodInfo pod, long gracePeriodSeconds) {
    var eviction =
        new EvictionBuilder()
            .withNewMetadata()
            .withName(pod.name())
            .withNamespace(pod.namespace())
            .endMetadata()
            .withDeleteOptions(
                new DeleteOptionsBuilder()
                    .withGracePeriodSeconds(gracePeriodSeconds)
                    .withPreconditions(new PreconditionsBuilder().withUid(pod.uid()).build())
                    .build())
            .build();
    try {
      boolean accepted =
          limited(
              () ->
                  client.pods().inNamespace(pod.namespace()).withName(pod.name()).evict(eviction));
      return accepted
          ? new EvictionResult.Evicted()
          : new EvictionResult.Blocked("the PodDisruptionBudget allows no disruption now");
    } catch (KubernetesClientException e) {
      int code = e.getCode();
      String message =
          e.getStatus() != null && e.getStatus().getMessage() != null
              ? e.getStatus().getMessage()
              : String.valueOf(e.getMessage());
      if (code == 404) {
        return new EvictionResult.Gone();
      }
      if (code == 409 && message.contains("UID")) {
        // precondition failed: a new pod took the name (StatefulSet); ours is gone
        return new EvictionResult.Gone();
      }
      if (code == 429) {
        return new EvictionResult.Blocked(message);
      }
      if (code == 500 && message.contains("more than one PodDisruptionBudget")) {
        return new EvictionResult.MultiplePdb(message);
      }
      if (code <= 0) {
        // no HTTP answer: transport failure (connection reset, timeout, stream refused)
        return new EvictionResult.Failed(
            code, "no answer from the API server: " + rootCause(e), true);
      }
      return new EvictionResult.Failed(code, message, code >= 500 || code == 409);
    }
  }

  @Override
  public boolean forceDelete(PodInfo pod) {
    try {
      var deleted =
          client
              .pods()
              .inNamespace(pod.namespace())
              .withName(pod.name())
              .withGracePeriod(0)
              .delete();
      return !deleted.isEmpty();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw unavailable("force-delete " + pod.key(), e);
    }
  }

  @Override
  public Map<String, List<BudgetInfo>> budgetsFor(List<PodInfo> pods) {
    var byNamespace = new HashMap<String, List<PodDisruptionBudget>>();
    var out = new LinkedHashMap<String, List<BudgetInfo>>();
    for (PodInfo pod : pods) {
      var pdbs =
          byNamespace.computeIfAbsent(
              pod.namespace(),
              ns ->
                  read(
                          "list PodDisruptionBudgets in " + ns,
                          () -> client.policy().v1().podDisruptionBudget().inNamespace(ns).list())
                      .getItems());
      var matching =
          pdbs.stream()
              .filter(p -> LabelSelectors.matches(p.getSpec().getSelector(), pod.labels()))
              .map(DrainClusterAdapter::toBudget)
              .toList();
      if (!matching.isEmpty()) {
        out.put(pod.key(), matching);
      }
    }
    return out;
  }

  private static BudgetInfo toBudget(PodDisruptionBudget pdb) {
    String rule =
        pdb.getSpec().getMinAvailable() != null
            ? "minAvailable=" + text(pdb.getSpec().getMinAvailable())
            : "maxUnavailable=" + text(pdb.getSpec().getMaxUnavailable());
    var s = pdb.getStatus();
    return new BudgetInfo(
        pdb.getMetadata().getNamespace(),
        pdb.getMetadata().getName(),
        rule,
        s == null ? null : s.getCurrentHealthy(),
        s == null ? null : s.getDesiredHealthy(),
        s == null ? null : s.getDisruptionsAllowed());
  }

  @Override
  public io.gpufleet.drain.PodNoticePort podNotices() {
    return notices;
  }

  @Override
  public void recordNodeEvent(String nodeName, boolean warning, String reason, String message) {
    KubeEvents.record(
        client,
        Instant.now(),
        "gpufleet-interruption-drain",
        "default",
        new ObjectReferenceBuilder()
            .withKind("Node")
            .withName(nodeName)
            .withApiVersion("v1")
            .build(),
        warning,
        reason,
        message);
  }

  private static String text(io.fabric8.kubernetes.api.model.IntOrString v) {
    return v == null ? "?" : v.getIntVal() != null ? v.getIntVal().toString() : v.getStrVal();
  }

  static NodeInfo toNode(GenericKubernetesResource n) {
    Map<String, Object> spec = map(n.getAdditionalProperties().get("spec"));
    List<NodeInfo.Taint> taints =
        spec == null || !(spec.get("taints") instanceof List<?> list)
            ? List.of()
            : list.stream().map(t -> toTaint(map(t))).toList();
    return new NodeInfo(
        n.getMetadata().getName(),
        spec == null ? null : string(spec.get("providerID")),
        n.getMetadata().getResourceVersion(),
        spec != null && Boolean.TRUE.equals(spec.get("unschedulable")),
        taints,
        n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels(),
        n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations());
  }

  private static String providerId(GenericKubernetesResource n) {
    Map<String, Object> spec = map(n.getAdditionalProperties().get("spec"));
    return spec == null ? null : string(spec.get("providerID"));
  }

  private static NodeInfo.Taint toTaint(Map<String, Object> t) {
    return new NodeInfo.Taint(
        string(t.get("key")), string(t.get("value")), string(t.get("effect")));
  }

  static PodInfo toPod(GenericKubernetesResource p) {
    ObjectMeta meta = p.getMetadata();
    List<OwnerReference> owners =
        meta.getOwnerReferences() == null ? List.of() : meta.getOwnerReferences();
    String ownerKind =
        owners.stream()
            .filter(o -> Boolean.TRUE.equals(o.getController()))
            .map(OwnerReference::getKind)
            .findFirst()
            .orElse(owners.isEmpty() ? null : owners.get(0).getKind());
    boolean mirror =
        meta.getAnnotations() != null
            && meta.getAnnotations().containsKey("kubernetes.io/config.mirror");
    Map<String, Object> spec = map(p.getAdditionalProperties().get("spec"));
    Map<String, Object> status = map(p.getAdditionalProperties().get("status"));
    return new PodInfo(
        meta.getNamespace(),
        meta.getName(),
        meta.getUid(),
        status == null ? null : string(status.get("phase")),
        ownerKind,
        mirror,
        meta.getDeletionTimestamp() != null,
        spec == null ? null : string(spec.get("priorityClassName")),
        spec == null || !(spec.get("priority") instanceof Number n) ? null : n.intValue(),
        spec == null || !(spec.get("terminationGracePeriodSeconds") instanceof Number n)
            ? null
            : n.longValue(),
        meta.getLabels() == null ? Map.of() : meta.getLabels(),
        meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
  }

  private static String string(Object value) {
    return value == null ? null : value.toString();
  }

  /** Reads are idempotent: transport errors, 429 and 5xx are retried briefly before giving up. */
  private <T> T read(String what, Supplier<T> call) {
    for (int attempt = 1; ; attempt++) {
      try {
        return limited(call);
      } catch (KubernetesClientException e) {
        int code = e.getCode();
        boolean transient_ = code <= 0 || code == 429 || code >= 500;
        if (!transient_ || attempt >= READ_ATTEMPTS) {
          throw unavailable(what, e);
        }
        try {
          Thread.sleep(READ_BACKOFF_MS << (attempt - 1));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw unavailable(what, e);
        }
      }
    }
  }

  private static String rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  private static ClusterUnavailableException unavailable(String what, KubernetesClientException e) {
    return new ClusterUnavailableException(
        "Kubernetes API: "
            + what
            + " failed ("
            + (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " + e.getMessage() : rootCause(e))
            + ")",
        e);
  }
}

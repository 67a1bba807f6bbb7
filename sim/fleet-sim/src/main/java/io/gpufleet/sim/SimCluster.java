package io.gpufleet.sim;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.time.TimeSource;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A simulated EKS cluster's API server on loopback: fabric8's CRUD mock with an eviction and PDB
 * model, pods that take their (granted) grace period to terminate, an optional ReplicaSet /
 * StatefulSet controller that starts replacements elsewhere, latency and fault injection.
 *
 * <p>Time runs on a {@link TimeSource} ({@link SimTime} for {@code simulate} and the benchmarks,
 * {@link io.gpufleet.core.time.VirtualTime} in tests). What kubelet and the controllers do later (a
 * pod gone when its grace period ends, a replacement started) goes on an agenda that is worked off
 * up to each request's {@link RequestTime} before the request is answered, and up to the caller's
 * time before each seeding or inspection call: every observer sees exactly what is due at its
 * instant, however fast or slow the machine. (Under virtual time, threads whose times differ see
 * the cluster as of the latest instant any request has reached.)
 */
public final class SimCluster implements AutoCloseable {
  // Held so the setting sticks: the mock server logs every request at INFO otherwise.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  private final TimeSource time;
  private final SimDispatcher dispatcher;
  private final KubernetesMockServer server;
  private final PriorityQueue<Due> agenda = new PriorityQueue<>();
  private final ReentrantLock working = new ReentrantLock();
  private long scheduled;
  private final AtomicInteger replacements = new AtomicInteger();
  private volatile Function<Pod, Duration> terminationTime = p -> Duration.ZERO;
  private volatile Duration replacementDelay;

  /** Something kubelet or a controller does at {@code at} (ties in the order scheduled). */
  private record Due(Instant at, long seq, Runnable action) implements Comparable<Due> {
    @Override
    public int compareTo(Due o) {
      int c = at.compareTo(o.at);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  // the HTTPS port (HTTP/2 by ALPN) of a cluster started with startHttps; null for plain HTTP
  private volatile TlsFront tls;

  private SimCluster(TimeSource time) {
    this.time = time;
    this.dispatcher = new SimDispatcher(this);
    this.server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
  }

  public static SimCluster start(TimeSource time) {
    return start(time, false);
  }

  /**
   * A cluster whose API server speaks HTTPS, as an EKS endpoint does, with a certificate made for
   * {@code localhost} when it starts ({@link #caData()}) and ALPN offering HTTP/2 as kube-apiserver
   * does ({@link TlsFront}): what {@code bench cold} runs against, so a function's first event pays
   * for its TLS handshake as in Lambda, once per connection a real cluster would need.
   */
  public static SimCluster startHttps(TimeSource time) {
    return start(time, true);
  }

  private static SimCluster start(TimeSource time, boolean https) {
    var cluster = new SimCluster(time);
    cluster.server.start(InetAddress.getLoopbackAddress(), 0);
    if (https) {
      try {
        cluster.tls = TlsFront.start(InetAddress.getLoopbackAddress(), cluster.dispatcher);
      } catch (RuntimeException e) {
        cluster.server.shutdown();
        throw e;
      }
    }
    return cluster;
  }

  /**
   * The HTTPS server's certificate as DescribeCluster's {@code certificateAuthority.data} carries a
   * cluster CA (base64 of the PEM); empty for a plain HTTP cluster.
   */
  public Optional<String> caData() {
    return tls == null ? Optional.empty() : Optional.of(tls.caData());
  }

  /**
   * TLS connections the HTTPS API server has accepted (0 for a plain HTTP cluster): each is a
   * handshake a client paid for.
   */
  public int tlsConnections() {
    return tls == null ? 0 : tls.connections();
  }

  public TimeSource time() {
    return time;
  }

  public String url() {
    return tls == null ? server.url("/") : tls.url();
  }

  /**
   * A client configured exactly like the functions' (no hidden retries, JDK HTTP client), whose
   * requests carry the sender's time ({@link RequestTime}).
   */
  public KubernetesClient newClient() {
    return KubeClients.forUrl(url(), caData(), () -> "sim-token", RequestTime.stamping(time));
  }

  /** Latency added to every request the functions make (not to seeding or inspection). */
  public void setLatency(Duration latency) {
    dispatcher.latency = latency;
  }

  /** How long (simulated) an evicted pod takes to disappear, capped by its granted grace. */
  public void setTerminationTime(Function<Pod, Duration> terminationTime) {
    this.terminationTime = terminationTime;
  }

  /** Start a replacement for evicted ReplicaSet/StatefulSet pods on another node after a delay. */
  public void enableReplacements(Duration delay) {
    this.replacementDelay = delay;
  }

  public int replacementsStarted() {
    catchUp(time.now());
    return replacements.get();
  }

  /** The next {@code times} requests matching get {@code code} (times &lt; 0: forever). */
  public void fail(Predicate<RecordedRequest> matches, int code, int times) {
    dispatcher.addFault(matches, code, times);
  }

  public void clearFaults() {
    dispatcher.clearFaults();
  }

  public static Predicate<RecordedRequest> evictions() {
    return r -> "POST".equals(r.getMethod()) && r.getPath().contains("/eviction");
  }

  public static Predicate<RecordedRequest> anyRequest() {
    return r -> true;
  }

  public List<ApiRequest> requests() {
    synchronized (dispatcher.log) {
      return List.copyOf(dispatcher.log);
    }
  }

  public void clearRequests() {
    dispatcher.log.clear();
  }

  // ---- seeding and inspection (not subject to latency or faults) ----

  public <T extends HasMetadata> T create(T resource) {
    catchUp(time.now());
    String path = collectionPath(resource);
    var response = dispatcher.internal(HttpMethod.POST, path, Serialization.asJson(resource));
    if (response.code() >= 300) {
      throw new IllegalStateException(
          "seeding " + path + " failed: " + response.getBody().readUtf8());
    }
    @SuppressWarnings("unchecked")
    T created = (T) Serialization.unmarshal(response.getBody().readUtf8(), resource.getClass());
    return created;
  }

  public Optional<Pod> pod(String namespace, String name) {
    return get("/api/v1/namespaces/" + namespace + "/pods/" + name, Pod.class);
  }

  public Optional<Node> node(String name) {
    return get("/api/v1/nodes/" + name, Node.class);
  }

  public List<Pod> podsOn(String nodeName) {
    catchUp(time.now());
    return dispatcher.pods.onNode(null, nodeName).stream()
        .map(json -> Serialization.unmarshal(json.toString(), Pod.class))
        .toList();
  }

  public List<Node> nodes() {
    catchUp(time.now());
    return Serialization.unmarshal(
            dispatcher.internal(HttpMethod.GET, "/api/v1/nodes", null).getBody().readUtf8(),
            io.fabric8.kubernetes.api.model.NodeList.class)
        .getItems();
  }

  public List<io.fabric8.kubernetes.api.model.Event> events() {
    catchUp(time.now());
    return Serialization.unmarshal(
            dispatcher.internal(HttpMethod.GET, "/api/v1/events", null).getBody().readUtf8(),
            io.fabric8.kubernetes.api.model.EventList.class)
        .getItems();
  }

  /** NodePools, Deployments, StatefulSets, HPAs and ScaledObjects (seeding, inspection, writes). */
  public SimObjects objects() {
    catchUp(time.now());
    return new SimObjects(dispatcher);
  }

  /** Sets one label on a node (a merge patch, not subject to latency or faults). */
  public void label(String node, String key, String value) {
    catchUp(time.now());
    var response =
        dispatcher.internal(
            HttpMethod.PATCH,
            "/api/v1/nodes/" + node,
            Serialization.asJson(Map.of("metadata", Map.of("labels", Map.of(key, value)))));
    if (response.code() >= 300) {
      throw new IllegalStateException(
          "labelling node " + node + " failed: " + response.getBody().readUtf8());
    }
  }

  /**
   * A node joining as a launched instance's kubelet registers it: NotReady now, Ready {@code
   * readyAfter} later (boot, GPU driver, device plugin), as the node lifecycle controller then sees
   * it.
   */
  public Node joinNode(Node node, Duration readyAfter) {
    var joining =
        new io.fabric8.kubernetes.api.model.NodeBuilder(node)
            .editOrNewStatus()
            .withConditions(
                new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
                    .withType("Ready")
                    .withStatus("False")
                    .withReason("KubeletNotReady")
                    .build())
            .endStatus()
            .build();
    Node created = create(joining);
    String name = created.getMetadata().getName();
    schedule(
        time.now().plus(readyAfter),
        () ->
            dispatcher.internal(
                HttpMethod.PATCH,
                "/api/v1/nodes/" + name,
                Serialization.asJson(
                    Map.of(
                        "status",
                        Map.of(
                            "conditions",
                            List.of(
                                Map.of(
                                    "type", "Ready",
                                    "status", "True",
                                    "reason", "KubeletReady")))))));
    return created;
  }

  public void deleteNode(String name) {
    catchUp(time.now());
    dispatcher.internal(HttpMethod.DELETE, "/api/v1/nodes/" + name, null);
  }

  private <T> Optional<T> get(String path, Class<T> type) {
    catchUp(time.now());
    var response = dispatcher.internal(HttpMethod.GET, path, null);
    if (response.code() == 404) {
      return Optional.empty();
    }
    return Optional.of(Serialization.unmarshal(response.getBody().readUtf8(), type));
  }

  private static String collectionPath(HasMetadata r) {
    String plural =
        switch (r.getKind()) {
          case "PodDisruptionBudget" -> "poddisruptionbudgets";
          default -> r.getKind().toLowerCase(java.util.Locale.ROOT) + "s";
        };
    String api =
        r.getApiVersion().contains("/")
            ? "/apis/" + r.getApiVersion()
            : "/api/" + r.getApiVersion();
    String ns = r.getMetadata().getNamespace();
    return ns == null || r instanceof Node
        ? api + "/" + plural
        : api + "/namespaces/" + ns + "/" + plural;
  }

  // ---- the behaviour of kubelet and controllers, in simulated time ----

  /** An eviction accepted at {@code at}: the pod goes when its (granted) grace allows. */
  void beginTermination(Pod pod, long grantedGrace, Instant at) {
    Duration wanted = terminationTime.apply(pod);
    Duration granted = Duration.ofSeconds(grantedGrace);
    Duration takes = wanted.compareTo(granted) > 0 ? granted : wanted;
    if (takes.isZero()) {
      remove(pod);
    } else {
      dispatcher.markTerminating(pod, grantedGrace, at);
      schedule(at.plus(takes), () -> remove(pod));
    }
    Duration delay = replacementDelay;
    String owner = controllerKind(pod);
    if (delay != null && ("ReplicaSet".equals(owner) || "StatefulSet".equals(owner))) {
      schedule(at.plus(takes).plus(delay), () -> startReplacement(pod, owner));
    }
  }

  void schedule(Instant at, Runnable action) {
    synchronized (agenda) {
      agenda.add(new Due(at, scheduled++, action));
    }
  }

  /**
   * Does, in order, everything due by {@code now}. One thread at a time; what an action itself
   * calls (seeding, inspection) does not start another round.
   */
  void catchUp(Instant now) {
    if (working.isHeldByCurrentThread()) {
      return;
    }
    working.lock();
    try {
      while (true) {
        Due next;
        synchronized (agenda) {
          next = agenda.peek();
          if (next == null || next.at().isAfter(now)) {
            return;
          }
          agenda.poll();
        }
        next.action().run();
      }
    } finally {
      working.unlock();
    }
  }

  private void remove(Pod pod) {
    var m = pod.getMetadata();
    dispatcher.internal(
        HttpMethod.DELETE, "/api/v1/namespaces/" + m.getNamespace() + "/pods/" + m.getName(), null);
  }

  private static String controllerKind(Pod pod) {
    var owners = pod.getMetadata().getOwnerReferences();
    return owners == null || owners.isEmpty() ? null : owners.get(0).getKind();
  }

  private void startReplacement(Pod old, String ownerKind) {
    String oldNode = old.getSpec().getNodeName();
    var target =
        nodes().stream()
            .filter(n -> !n.getMetadata().getName().equals(oldNode))
            .filter(
                n -> n.getSpec() == null || !Boolean.TRUE.equals(n.getSpec().getUnschedulable()))
            .filter(
                n ->
                    n.getSpec() == null
                        || n.getSpec().getTaints() == null
                        || n.getSpec().getTaints().stream()
                            .noneMatch(t -> "NoSchedule".equals(t.getEffect())))
            .findFirst();
    if (target.isEmpty()) {
      return;
    }
    String name =
        "StatefulSet".equals(ownerKind)
            ? old.getMetadata().getName()
            : old.getMetadata().getGenerateName() != null
                ? old.getMetadata().getGenerateName() + UUID.randomUUID().toString().substring(0, 5)
                : old.getMetadata().getName() + "-r" + replacements.get();
    if (pod(old.getMetadata().getNamespace(), name).isPresent()) {
      return;
    }
    var fresh =
        new PodBuilder(old)
            .editMetadata()
            .withName(name)
            .withUid(UUID.randomUUID().toString())
            .withResourceVersion(null)
            .withDeletionTimestamp(null)
            .withDeletionGracePeriodSeconds(null)
            .endMetadata()
            .editSpec()
            .withNodeName(target.get().getMetadata().getName())
            .endSpec()
            .build();
    create(fresh);
    replacements.incrementAndGet();
  }

  @Override
  public void close() {
    try {
      if (tls != null) {
        tls.close();
      }
    } finally {
      server.shutdown();
    }
  }

  // ---- builders for the objects a GPU fleet is made of ----

  /** A GPU node as EKS registers it: providerID, instance type, zone, capacity type, pool. */
  public static Node gpuNode(
      String name,
      String instanceId,
      String zone,
      String instanceType,
      String capacityType,
      String nodePool,
      String nodeGroup,
      int gpus) {
    Map<String, String> labels = new HashMap<>();
    labels.put("kubernetes.io/hostname", name);
    labels.put("node.kubernetes.io/instance-type", instanceType);
    labels.put("topology.kubernetes.io/zone", zone);
    labels.put("topology.kubernetes.io/region", zone.substring(0, zone.length() - 1));
    if (nodePool != null) {
      labels.put("karpenter.sh/nodepool", nodePool);
      labels.put("karpenter.sh/capacity-type", capacityType);
    }
    if (nodeGroup != null) {
      labels.put("eks.amazonaws.com/nodegroup", nodeGroup);
      labels.put(
          "eks.amazonaws.com/capacityType", "spot".equals(capacityType) ? "SPOT" : "ON_DEMAND");
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withProviderID("aws:///" + zone + "/" + instanceId)
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .withReason("KubeletReady")
        .endCondition()
        .addToCapacity("nvidia.com/gpu", new Quantity(String.valueOf(gpus)))
        .addToAllocatable("nvidia.com/gpu", new Quantity(String.valueOf(gpus)))
        .endStatus()
        .build();
  }

  /**
   * A Karpenter karpenter.sh/v1 NodePool with {@code limits} and template requirements (each
   * requirement: key, operator, values...).
   */
  public static io.fabric8.kubernetes.api.model.GenericKubernetesResource nodePool(
      String name, Map<String, String> limits, List<List<String>> requirements) {
    var reqs = new java.util.ArrayList<Map<String, Object>>();
    for (List<String> r : requirements) {
      var m = new java.util.LinkedHashMap<String, Object>();
      m.put("key", r.get(0));
      m.put("operator", r.get(1));
      if (r.size() > 2) {
        m.put("values", List.copyOf(r.subList(2, r.size())));
      }
      reqs.add(m);
    }
    var spec = new java.util.LinkedHashMap<String, Object>();
    spec.put(
        "template",
        Map.of(
            "spec",
            Map.of(
                "requirements",
                reqs,
                "nodeClassRef",
                Map.of("group", "karpenter.k8s.aws", "kind", "EC2NodeClass", "name", "default"))));
    spec.put("limits", Map.copyOf(limits));
    // consolidateAfter is required by Karpenter's v1 CRD (RealApiSimFixturesTest)
    spec.put(
        "disruption",
        Map.of("consolidationPolicy", "WhenEmptyOrUnderutilized", "consolidateAfter", "1m"));
    var pool =
        new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
            .withApiVersion("karpenter.sh/v1")
            .withKind("NodePool")
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .build();
    pool.setAdditionalProperty("spec", spec);
    return pool;
  }

  /** A running, ready pod owned by {@code ownerKind}/{@code ownerName} on a node. */
  public static Pod runningPod(
      String namespace,
      String name,
      String node,
      String ownerKind,
      String ownerName,
      Map<String, String> labels,
      long graceSeconds,
      int gpus) {
    var builder =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .withUid(UUID.randomUUID().toString())
            .withLabels(labels)
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .withTerminationGracePeriodSeconds(graceSeconds)
            .addNewContainer()
            .withName("main")
            .withImage("public.ecr.aws/example/app:1")
            .withNewResources()
            .addToRequests("cpu", new Quantity("1"))
            .endResources()
            .endContainer()
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").build())
            .endStatus();
    if (ownerKind != null) {
      builder
          .editMetadata()
          .withOwnerReferences(
              new OwnerReferenceBuilder()
                  .withApiVersion("apps/v1")
                  .withKind(ownerKind)
                  .withName(ownerName)
                  .withUid(UUID.nameUUIDFromBytes(ownerName.getBytes()).toString())
                  .withController(true)
                  .build())
          .endMetadata();
      if ("ReplicaSet".equals(ownerKind)) {
        builder.editMetadata().withGenerateName(ownerName + "-").endMetadata();
      }
    }
    if (gpus > 0) {
      builder
          .editSpec()
          .editFirstContainer()
          .editResources()
          .addToRequests("nvidia.com/gpu", new Quantity(String.valueOf(gpus)))
          .addToLimits("nvidia.com/gpu", new Quantity(String.valueOf(gpus)))
          .endResources()
          .endContainer()
          .endSpec();
    }
    return builder.build();
  }

  /** A PDB; {@code expectedPods} is the controller's scale (so missing pods still count). */
  public static PodDisruptionBudget pdb(
      String namespace,
      String name,
      Map<String, String> selector,
      String minAvailable,
      String maxUnavailable,
      int expectedPods) {
    var builder =
        new PodDisruptionBudgetBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withNewSelector()
            .withMatchLabels(selector)
            .endSelector()
            .endSpec()
            .withNewStatus()
            .withExpectedPods(expectedPods)
            .endStatus();
    if (minAvailable != null) {
      builder.editSpec().withMinAvailable(intOrString(minAvailable)).endSpec();
    }
    if (maxUnavailable != null) {
      builder.editSpec().withMaxUnavailable(intOrString(maxUnavailable)).endSpec();
    }
    return builder.build();
  }

  private static io.fabric8.kubernetes.api.model.IntOrString intOrString(String v) {
    return v.endsWith("%")
        ? new io.fabric8.kubernetes.api.model.IntOrString(v)
        : new io.fabric8.kubernetes.api.model.IntOrString(Integer.parseInt(v));
  }

  /** Keeps a PDB's status in step with the pods, as the disruption controller would. */
  public void refreshPdbStatus(String namespace, String name) {
    catchUp(time.now());
    get(
            "/apis/policy/v1/namespaces/" + namespace + "/poddisruptionbudgets/" + name,
            PodDisruptionBudget.class)
        .ifPresent(
            pdb -> {
              var b = dispatcher.budget(pdb);
              if (pdb.getStatus() == null) {
                pdb.setStatus(
                    new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus());
              }
              pdb.getStatus().setExpectedPods(b.expected());
              pdb.getStatus().setCurrentHealthy(b.healthy());
              pdb.getStatus().setDesiredHealthy(b.desired());
              pdb.getStatus().setDisruptionsAllowed(b.allowed());
              pdb.getStatus().setObservedGeneration(pdb.getMetadata().getGeneration());
              pdb.getMetadata().setResourceVersion(null);
              dispatcher.internal(
                  HttpMethod.PUT,
                  "/apis/policy/v1/namespaces/" + namespace + "/poddisruptionbudgets/" + name,
                  Serialization.asJson(pdb));
            });
  }
}

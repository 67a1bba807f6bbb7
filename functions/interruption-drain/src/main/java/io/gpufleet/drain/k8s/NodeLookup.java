package io.gpufleet.drain.k8s;

import static io.gpufleet.drain.k8s.KubeResources.NODES;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.drain.DrainClusterPort;
import io.gpufleet.drain.InstanceLookupPort;
import io.gpufleet.drain.model.NodeInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reading nodes: an instance's node by providerID, cached by instance id from the last listing
 * (re-verified by the claim patch's resourceVersion), found with one GET of the name EC2 gives when
 * an instance directory is set; a node by name, its readiness, a Capacity Block's nodes.
 */
final class NodeLookup {
  static final int PAGE = 500;

  private final KubernetesClient client;
  private final KubeCalls calls;
  private final Object listingLock = new Object();
  private final AtomicLong listings = new AtomicLong();
  private volatile Map<String, NodeInfo> lastListed = new ConcurrentHashMap<>();
  private volatile InstanceLookupPort directory = InstanceLookupPort.NONE;

  NodeLookup(KubernetesClient client, KubeCalls calls) {
    this.client = client;
    this.calls = calls;
  }

  /**
   * From the last listing when the instance is in it (no request: the claim patch is guarded by
   * resourceVersion, so a stale copy costs one 409 and a re-read), else from a fresh listing that
   * concurrent lookups share.
   */
  Optional<NodeInfo> findNodeByInstanceId(String instanceId) {
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

  void useInstanceDirectory(InstanceLookupPort directory) {
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

  Optional<NodeInfo> knownNode(String instanceId) {
    return Optional.ofNullable(lastListed.get(instanceId));
  }

  /** A patched node replaces its cached copy (when the instance is cached). */
  void patched(GenericKubernetesResource patched) {
    String pid = patched == null ? null : KubeResources.providerId(patched);
    if (pid != null) {
      lastListed.computeIfPresent(
          pid.substring(pid.lastIndexOf('/') + 1), (id, old) -> KubeResources.toNode(patched));
    }
  }

  List<NodeInfo> nodesInCapacityReservation(String reservationId) {
    GenericKubernetesResourceList list =
        calls.read(
            "list nodes of capacity reservation " + reservationId,
            () ->
                client
                    .genericKubernetesResources(NODES)
                    .withLabel(DrainClusterPort.CAPACITY_RESERVATION_LABEL, reservationId)
                    .list());
    return list.getItems().stream().map(KubeResources::toNode).toList();
  }

  private void listNodes() {
    var listed = new HashMap<String, NodeInfo>();
    String continueToken = null;
    do {
      String token = continueToken;
      GenericKubernetesResourceList page =
          calls.read(
              "list nodes",
              () ->
                  client
                      .genericKubernetesResources(NODES)
                      .list(
                          new ListOptionsBuilder()
                              .withLimit((long) PAGE)
                              .withContinue(token)
                              .build()));
      for (GenericKubernetesResource n : page.getItems()) {
        String pid = KubeResources.providerId(n);
        if (pid != null) {
          String id = pid.substring(pid.lastIndexOf('/') + 1);
          listed.put(id, KubeResources.toNode(n));
        }
      }
      continueToken = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (continueToken != null && !continueToken.isEmpty());
    lastListed = new ConcurrentHashMap<>(listed);
  }

  Optional<NodeInfo> getNode(String name) {
    return Optional.ofNullable(get(name)).map(KubeResources::toNode);
  }

  boolean nodeReady(String name) {
    GenericKubernetesResource node = get(name);
    if (node == null) {
      return false;
    }
    Map<String, Object> status = KubeResources.map(node.getAdditionalProperties().get("status"));
    if (status == null || !(status.get("conditions") instanceof List<?> conditions)) {
      return false;
    }
    return conditions.stream()
        .map(KubeResources::map)
        .anyMatch(
            c -> c != null && "Ready".equals(c.get("type")) && "True".equals(c.get("status")));
  }

  private GenericKubernetesResource get(String name) {
    return calls.read(
        "get node " + name, () -> client.genericKubernetesResources(NODES).withName(name).get());
  }
}

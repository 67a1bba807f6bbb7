package io.gpufleet.drain.k8s;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpufleet.core.k8s.KubeEvents;
import io.gpufleet.drain.DrainClusterPort;
import io.gpufleet.drain.InstanceLookupPort;
import io.gpufleet.drain.PodNoticePort;
import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.NodeChange;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link DrainClusterPort} over fabric8, one part per Kubernetes concern: reading nodes ({@link
 * NodeLookup}: cached by instance id and re-verified), tainting and cordoning them ({@link
 * NodePatches}), listing and evicting pods ({@link PodEvictions}), pod notices ({@link
 * PodNoticeAdapter}) and node Events; every request through {@link KubeCalls} (in-flight limit,
 * read retries).
 */
public final class DrainClusterAdapter implements DrainClusterPort {
  /** Requests in flight at once across all drains of this container (bounds connections). */
  public static final int DEFAULT_MAX_IN_FLIGHT = 256;

  private final KubernetesClient client;
  private final NodeLookup nodes;
  private final NodePatches patches;
  private final PodEvictions pods;
  private final PodNoticeAdapter notices;

  public DrainClusterAdapter(KubernetesClient client) {
    this(client, DEFAULT_MAX_IN_FLIGHT);
  }

  public DrainClusterAdapter(KubernetesClient client, int maxInFlight) {
    var calls = new KubeCalls(maxInFlight);
    this.client = client;
    this.nodes = new NodeLookup(client, calls);
    this.patches = new NodePatches(client, nodes);
    this.pods = new PodEvictions(client, calls);
    this.notices = new PodNoticeAdapter(client);
  }

  /**
   * Builds, without any request, what the first invocation's reads and writes need from the
   * client's JSON mapper ({@link ClientPriming}). No network, credentials, tokens, randomness or
   * clock.
   */
  public void prime() {
    prime(client.getKubernetesSerialization());
  }

  /**
   * The same on any mapper: the INIT warm-up thread runs it on the mapping every client shares
   * ({@code KubeClients.serialization()}) while the main thread builds the client.
   */
  public static void prime(KubernetesSerialization json) {
    ClientPriming.prime(json);
  }

  @Override
  public Optional<NodeInfo> findNodeByInstanceId(String instanceId) {
    return nodes.findNodeByInstanceId(instanceId);
  }

  @Override
  public void useInstanceDirectory(InstanceLookupPort directory) {
    nodes.useInstanceDirectory(directory);
  }

  @Override
  public Optional<NodeInfo> knownNode(String instanceId) {
    return nodes.knownNode(instanceId);
  }

  @Override
  public List<NodeInfo> nodesInCapacityReservation(String reservationId) {
    return nodes.nodesInCapacityReservation(reservationId);
  }

  @Override
  public Optional<NodeInfo> getNode(String name) {
    return nodes.getNode(name);
  }

  @Override
  public boolean nodeReady(String name) {
    return nodes.nodeReady(name);
  }

  @Override
  public boolean patchNode(NodeInfo node, NodeChange change) {
    return patches.patchNode(node, change);
  }

  @Override
  public List<PodInfo> podsOnNode(String nodeName) {
    return pods.podsOnNode(nodeName);
  }

  @Override
  public EvictionResult evict(PodInfo pod, long gracePeriodSeconds) {
    return pods.evict(pod, gracePeriodSeconds);
  }

  @Override
  public boolean forceDelete(PodInfo pod) {
    return pods.forceDelete(pod);
  }

  @Override
  public Map<String, List<BudgetInfo>> budgetsFor(List<PodInfo> podList) {
    return pods.budgetsFor(podList);
  }

  @Override
  public PodNoticePort podNotices() {
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
}

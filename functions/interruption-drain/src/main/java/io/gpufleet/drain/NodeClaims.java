package io.gpufleet.drain;

import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.model.NodeChange;
import io.gpufleet.drain.model.NodeInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node side of a drain, shared by the event drain ({@link EventDrain}) and the lifecycle drain
 * ({@link LifecycleService}): find the instance's node, claim it (taint + cordon + {@link
 * DrainMarker} in one patch guarded by resourceVersion), move the marker on, release it when the
 * drain failed. Neither drain calls the other; both call this.
 */
final class NodeClaims {
  /** A claim holds this long past the event's deadline. */
  static final Duration CLAIM_GRACE = Duration.ofSeconds(30);

  static final int CLAIM_ATTEMPTS = 5;

  /** The longest an eviction waits for the other nodes of a burst to be cordoned first. */
  static final Duration CLAIMS_FIRST_MAX = Duration.ofSeconds(2);

  private final DrainClusterPort cluster;
  private final DrainPolicy policy;
  private final Clock clock;
  private final Sleeper sleeper;

  /** Instances of this cluster being looked up and cordoned right now (see awaitClaims). */
  private final AtomicInteger claiming = new AtomicInteger();

  NodeClaims(DrainClusterPort cluster, DrainPolicy policy, Clock clock, Sleeper sleeper) {
    this.cluster = cluster;
    this.policy = policy;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /** The node whose providerID names the instance (empty: none in this cluster). */
  Optional<NodeInfo> find(String instanceId) {
    return cluster.findNodeByInstanceId(instanceId);
  }

  /** What an event's claim of its node came to. */
  sealed interface EventClaim {
    /** Claimed: {@code node} as patched from, {@code marker} as written. */
    record Claimed(NodeInfo node, DrainMarker marker) implements EventClaim {}

    /** Another delivery of the event has the node ({@code done}: and has finished with it). */
    record Duplicate(boolean done) implements EventClaim {}

    /** The node was deleted while it was being claimed. */
    record NodeGone() implements EventClaim {}
  }

  /**
   * Claims {@code node} for event {@code eventId} in {@code state}: unless a marker says the event
   * is (being) handled, the marker moves on to this event and goes in with the taint and cordon; a
   * node that changed under the patch is read again, {@link #CLAIM_ATTEMPTS} times at most.
   */
  EventClaim claimForEvent(
      String eventId, DrainPolicy.Plan plan, NodeInfo node, DrainMarker.State state) {
    String kind = plan.kind().label();
    Instant until = plan.deadline().plus(CLAIM_GRACE);
    for (int attempt = 1; ; attempt++) {
      Optional<DrainMarker> existing = DrainMarker.read(node.annotations());
      if (existing.isPresent() && existing.get().blocks(eventId, clock.instant())) {
        return new EventClaim.Duplicate(
            existing.get().recent().contains(eventId)
                || existing.get().state() == DrainMarker.State.DONE);
      }
      DrainMarker marker =
          existing
              .map(e -> e.next(eventId, kind, state, until))
              .orElseGet(() -> new DrainMarker(eventId, kind, state, until));
      if (cluster.patchNode(node, policy.claim(plan, node, marker))) {
        return new EventClaim.Claimed(node, marker);
      }
      if (attempt == CLAIM_ATTEMPTS) {
        throw new DrainClusterPort.ClusterUnavailableException(
            "node " + node.name() + " kept changing under " + CLAIM_ATTEMPTS + " claim attempts",
            null);
      }
      var reread = cluster.getNode(node.name());
      if (reread.isEmpty()) {
        return new EventClaim.NodeGone();
      }
      node = reread.get();
    }
  }

  /**
   * Claims {@code node} with {@code marker} whatever marker it has (the caller checked it): when
   * the node changed since it was read, one fresh read and the patch again. Returns the node as
   * last read.
   */
  NodeInfo claim(DrainPolicy.Plan plan, NodeInfo node, DrainMarker marker) {
    if (!cluster.patchNode(node, policy.claim(plan, node, marker))) {
      node = cluster.getNode(node.name()).orElse(node);
      cluster.patchNode(node, policy.claim(plan, node, marker));
    }
    return node;
  }

  /** Writes {@code marker} on the node (its other fields untouched); nothing when it is gone. */
  void mark(String nodeName, DrainMarker marker) {
    cluster
        .getNode(nodeName)
        .ifPresent(
            n ->
                cluster.patchNode(
                    n,
                    new NodeChange(
                        null,
                        false,
                        Map.of(),
                        Map.of(DrainMarker.ANNOTATION, marker.toJson()),
                        false)));
  }

  /** Best effort: lets Lambda's retry of this event take over at once instead of waiting. */
  void release(String nodeName, DrainMarker marker) {
    try {
      mark(nodeName, marker.with(DrainMarker.State.FAILED));
    } catch (RuntimeException ignored) {
      // the cluster is what failed; the claim then expires at marker.until()
    }
  }

  /** True when another event has claimed the node since {@code ours} (or the node is gone). */
  boolean takenOver(String nodeName, DrainMarker ours) {
    return cluster
        .getNode(nodeName)
        .map(
            n ->
                DrainMarker.read(n.annotations())
                    .map(m -> !m.eventId().equals(ours.eventId()))
                    .orElse(false))
        .orElse(true);
  }

  // ---- cordons first ----

  /** Counts a claim as in flight until {@link #claimEnded} (once, whichever call comes first). */
  AtomicBoolean claimStarted() {
    var claim = new AtomicBoolean(true);
    claiming.incrementAndGet();
    return claim;
  }

  void claimEnded(AtomicBoolean claim) {
    if (claim.compareAndSet(true, false)) {
      claiming.decrementAndGet();
    }
  }

  /**
   * Cordons go first: before evicting, wait (briefly, bounded) until every node this cluster's
   * drains are claiming is cordoned, so a burst of events cordons all its nodes before the API
   * server is busy with evictions.
   */
  void awaitClaims(Instant deadline) throws InterruptedException {
    Instant until = clock.instant().plus(CLAIMS_FIRST_MAX);
    if (deadline.isBefore(until)) {
      until = deadline;
    }
    while (claiming.get() > 0 && clock.instant().isBefore(until)) {
      sleeper.sleep(Duration.ofMillis(10));
    }
  }
}

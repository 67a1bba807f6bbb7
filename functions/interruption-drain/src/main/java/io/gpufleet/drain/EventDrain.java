package io.gpufleet.drain;

import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.NodeInfo;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The drain of one instance of an interruption event in one cluster: decide whether the event acts
 * at all, claim + taint + cordon the node ({@link NodeClaims}), then drain it ({@link Drainer}),
 * raising a replacement first where its Auto Scaling group opted in ({@link ReplacementRun}).
 * Throws only for transient cluster failures; everything else ends in an outcome ({@link
 * DrainOutcomes}).
 */
final class EventDrain {
  private final ClusterTools tools;
  private final DrainSettings settings;
  private final DrainPolicy policy;
  private final NodeClaims claims;
  private final DrainOutcomes outcomes;
  private final Drainer drainer;

  /** The Auto Scaling groups replacement before removal works on (null: it is off). */
  private volatile ReplacementPort replacement;

  EventDrain(ClusterTools tools) {
    this.tools = tools;
    this.settings = tools.settings();
    this.policy = tools.policy();
    this.claims = tools.claims();
    this.outcomes = tools.outcomes();
    this.drainer = new Drainer(tools.cluster(), tools.clock(), tools.sleeper(), settings);
  }

  void replaceEarlyWith(ReplacementPort groups) {
    this.replacement = groups;
  }

  /** The outcome of {@code event} for {@code instanceId} (not yet reported). */
  DrainOutcome drain(
      FleetEvent.InstanceEvent event, String instanceId, Instant received, Instant hardStop)
      throws InterruptedException {
    if (event instanceof FleetEvent.InstanceStateChange change && !change.actionable()) {
      return outcomes.simple(
          event,
          instanceId,
          null,
          Status.NO_ACTION,
          "instance is "
              + (change.state().isEmpty() ? "in an unnamed state" : "'" + change.state() + "'")
              + ": nothing to do (acting on "
              + new java.util.TreeSet<>(FleetEvent.InstanceStateChange.ACTIONABLE)
              + ")",
          received);
    }
    DrainPolicy.Plan plan = policy.plan(event, hardStop);
    if (plan.actions().isEmpty()) {
      return outcomes.simple(
          event,
          instanceId,
          null,
          Status.NO_ACTION,
          "no actions configured for " + plan.kind(),
          received);
    }
    if (settings.options().dryRun()) {
      return tools.dryRuns().outcome(event, instanceId, plan, received, List.of());
    }
    var claim = claims.claimStarted();
    try {
      return claimAndDrain(event, instanceId, plan, received, claim);
    } finally {
      claims.claimEnded(claim);
    }
  }

  private DrainOutcome claimAndDrain(
      FleetEvent.InstanceEvent event,
      String instanceId,
      DrainPolicy.Plan plan,
      Instant received,
      java.util.concurrent.atomic.AtomicBoolean claim)
      throws InterruptedException {
    DrainKind kind = plan.kind();
    Optional<NodeInfo> found = claims.find(instanceId);
    if (found.isEmpty()) {
      return outcomes.simple(
          event,
          instanceId,
          null,
          Status.NOT_IN_CLUSTER,
          "no node of cluster "
              + settings.clusterName()
              + " has providerID .../"
              + instanceId
              + (kind == DrainKind.STATE_CHANGE
                  ? " (another cluster's instance, or its node is already gone)"
                  : ""),
          received);
    }
    String excluded = policy.exclusion(found.get());
    if (excluded != null) {
      return outcomes.simple(
          event, instanceId, found.get().name(), Status.EXCLUDED, excluded, received);
    }
    boolean drain = plan.actions().contains(Action.DRAIN);
    // a rebalance that replaces its node first drains it after the raise: held until then
    var groups = replacement;
    boolean mayReplace =
        ReplacementRun.applies(groups, kind) && (drain || kind == DrainKind.REBALANCE);
    var claimState = drain || mayReplace ? DrainMarker.State.IN_PROGRESS : DrainMarker.State.DONE;
    NodeInfo node;
    DrainMarker marker;
    switch (claims.claimForEvent(event.meta().id(), plan, found.get(), claimState)) {
      case NodeClaims.EventClaim.Duplicate d -> {
        return outcomes.simple(
            event,
            instanceId,
            found.get().name(),
            Status.DUPLICATE,
            "event already " + (d.done() ? "handled" : "being handled") + " for this node",
            received);
      }
      case NodeClaims.EventClaim.NodeGone g -> {
        return outcomes.simple(
            event,
            instanceId,
            found.get().name(),
            Status.NODE_GONE,
            "node deleted while claiming it",
            received);
      }
      case NodeClaims.EventClaim.Claimed c -> {
        node = c.node();
        marker = c.marker();
      }
    }
    Instant cordoned = tools.clock().instant();
    claims.claimEnded(claim);
    var replacing =
        mayReplace
            ? ReplacementRun.start(
                groups, tools.cluster(), tools.clock(), tools.sleeper(), instanceId, kind)
            : null;
    boolean replaceFirst = replacing != null && kind == DrainKind.REBALANCE && replacing.raised();
    if (!drain && !replaceFirst) {
      var told =
          CheckpointWait.tellNode(
              tools.cluster(), tools.clock(), tools.sleeper(), node.name(), kind);
      if (claimState == DrainMarker.State.IN_PROGRESS) {
        claims.mark(node.name(), marker.with(DrainMarker.State.DONE));
      }
      return outcomes
          .cordoned(
              event,
              instanceId,
              node.name(),
              plan,
              "tainted/cordoned; this kind does not drain",
              received,
              cordoned)
          .withCheckpoints(told.reports())
          .withReplacement(replacing == null ? null : replacing.finish(false));
    }
    claims.awaitClaims(plan.deadline());
    var selection = policy.select(tools.cluster().podsOnNode(node.name()));
    Drainer.Result result;
    String nodeName = node.name();
    DrainMarker claimed = marker;
    try {
      result =
          replaceFirst
              ? replacing.drainReplacingFirst(
                  drainer,
                  nodeName,
                  selection,
                  plan,
                  () -> claims.takenOver(nodeName, claimed),
                  () -> continueLater(event, instanceId))
              : drainer.run(nodeName, selection, plan);
    } catch (RuntimeException | InterruptedException e) {
      claims.release(node.name(), marker);
      throw e;
    }
    if (!replaceFirst || !claims.takenOver(nodeName, claimed)) {
      // a Spot warning that claimed the node during the rebalance's hold keeps its own claim
      claims.mark(node.name(), marker.with(DrainMarker.State.DONE));
    }
    var done =
        outcomes
            .drained(event, instanceId, node.name(), plan, selection, result, received, cordoned)
            .withCheckpoints(result.checkpoints());
    if (replacing == null) {
      return done;
    }
    if (replacing.continued()) {
      done =
          done.with(
              Status.DRAINING,
              done.message()
                  + "; "
                  + replacing.heldCount()
                  + " inference replica(s) held until the replacement is Ready: round "
                  + (ReplacementRun.round(event.meta().id()) + 1)
                  + " follows in "
                  + ReplacementRun.CONTINUE_AFTER.toSeconds()
                  + "s");
    }
    return done.withReplacement(replacing.finish(done.status() == Status.DRAINED));
  }

  /**
   * Sends the follow-up of a rebalance's hold, when it may go on ({@link
   * ReplacementRun#mayContinue}); false when it may not or could not be sent (the replicas are then
   * evicted in this invocation, nothing is left waiting for a message that never comes).
   */
  private boolean continueLater(FleetEvent.InstanceEvent event, String instanceId) {
    var continuations = tools.continuations();
    if (!ReplacementRun.mayContinue(continuations, event, tools.clock().instant())) {
      return false;
    }
    try {
      continuations.schedule(
          ReplacementRun.continuation(event, instanceId), ReplacementRun.CONTINUE_AFTER);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }
}

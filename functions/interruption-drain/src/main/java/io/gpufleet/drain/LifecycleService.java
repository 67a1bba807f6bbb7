package io.gpufleet.drain;

import io.gpufleet.core.event.FleetEvent.LifecycleAction;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.LifecyclePort.HookDeniedException;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.NodeInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * EC2 Auto Scaling lifecycle hooks. Terminate: taint + cordon + drain the instance's node while
 * heartbeating the action, then CompleteLifecycleAction CONTINUE; a drain still going when the
 * invocation ends is resumed by a delayed continuation (heartbeat sent first), until {@code
 * LIFECYCLE_MAX_DRAIN} after the first delivery, where the action is completed with {@code
 * LIFECYCLE_RESULT_AT_LIMIT}. Launch: CONTINUE once the node is Ready (or at the ready timeout). An
 * instance with no node here is let go at once (nothing to drain). The node is found, claimed and
 * marked through the cluster's {@link NodeClaims}, as the event drain does; the action's own calls
 * are {@link LifecycleRound}'s.
 */
final class LifecycleService {
  /** Keeps the claim past the follow-up's due time, so a redelivery cannot take the node over. */
  static final Duration CLAIM_SLACK = Duration.ofMinutes(2);

  private final ClusterTools tools;
  private final DrainSettings settings;
  private final DrainSettings.Lifecycle config;
  private final DrainClusterPort cluster;
  private final DrainPolicy policy;
  private final NodeClaims claims;
  private final DrainOutcomes outcomes;
  private final LifecyclePort hooks;
  private final ContinuationPort continuations;
  private final Clock clock;
  private final Sleeper sleeper;

  LifecycleService(ClusterTools tools, LifecyclePort hooks) {
    this.tools = tools;
    this.settings = tools.settings();
    this.config = settings.options().lifecycle();
    this.cluster = tools.cluster();
    this.policy = tools.policy();
    this.claims = tools.claims();
    this.outcomes = tools.outcomes();
    this.hooks = hooks;
    this.continuations = tools.continuations();
    this.clock = tools.clock();
    this.sleeper = tools.sleeper();
  }

  DrainOutcome handle(LifecycleAction action, Instant received, Instant hardStop) {
    var round = new LifecycleRound(action, received, hooks, continuations, config, clock);
    try {
      return action.terminating()
          ? terminate(round, received, hardStop)
          : launch(round, received, hardStop);
    } catch (HookDeniedException e) {
      return outcomes
          .simple(
              action,
              action.instanceId(),
              null,
              Status.NOT_IN_CLUSTER,
              "not permitted to act on lifecycle hooks of Auto Scaling group "
                  + action.autoScalingGroupName()
                  + " ("
                  + e.getMessage()
                  + "): left to its owner",
              received)
          .withLifecycle(round.report(null, null, "access denied"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while handling " + action.instanceId(), e);
    }
  }

  // ---- terminate ----

  private DrainOutcome terminate(LifecycleRound r, Instant received, Instant hardStop)
      throws InterruptedException {
    var action = r.action();
    var plan = policy.plan(action, hardStop);
    if (settings.options().dryRun()) {
      return tools
          .dryRuns()
          .outcome(
              action,
              action.instanceId(),
              plan,
              received,
              List.of(
                  "heartbeat the lifecycle action every "
                      + config.heartbeatInterval().toSeconds()
                      + "s while pods remain",
                  "complete lifecycle action "
                      + action.hookName()
                      + " of "
                      + action.autoScalingGroupName()
                      + ": CONTINUE when drained, "
                      + config.resultAtLimit()
                      + " after "
                      + config.maxDrain()))
          .withLifecycle(r.report(null, null, "dry run"));
    }
    Optional<NodeInfo> found = claims.find(action.instanceId());
    if (found.isEmpty()) {
      String result = r.complete("CONTINUE");
      return outcomes
          .simple(
              action,
              action.instanceId(),
              null,
              Status.NOT_IN_CLUSTER,
              "no node of cluster "
                  + settings.clusterName()
                  + " has providerID .../"
                  + action.instanceId()
                  + ": nothing to drain, termination let go on",
              received)
          .withLifecycle(r.report(result, null, LifecycleRound.noteFor(result)));
    }
    NodeInfo node = found.get();
    String excluded = policy.exclusion(node);
    if (excluded != null || plan.actions().isEmpty()) {
      String result = r.complete("CONTINUE");
      return outcomes
          .simple(
              action,
              action.instanceId(),
              node.name(),
              excluded != null ? Status.EXCLUDED : Status.NO_ACTION,
              (excluded != null ? excluded : "no actions configured for " + plan.kind())
                  + "; termination let go on",
              received)
          .withLifecycle(r.report(result, null, LifecycleRound.noteFor(result)));
    }
    Instant limit = r.firstReceived().plus(config.maxDrain());
    boolean lastRound = !hardStop.isBefore(limit) || !continuations.available();
    Instant until = lastRound && hardStop.isAfter(limit) ? limit : hardStop;
    if (until.isBefore(clock.instant())) {
      until = clock.instant();
    }

    // claim: the first delivery's id is the key, so a redelivery finds it and a follow-up owns it
    String key = action.originalEventId();
    var marker =
        new DrainMarker(
            key,
            plan.kind().label(),
            DrainMarker.State.IN_PROGRESS,
            until.plus(config.checkInterval()).plus(CLAIM_SLACK));
    Optional<DrainMarker> existing = DrainMarker.read(node.annotations());
    if (existing.isPresent() && existing.get().eventId().equals(key)) {
      boolean ours =
          action.continuation() != null && existing.get().state() == DrainMarker.State.IN_PROGRESS;
      if (!ours && existing.get().blocks(key, clock.instant())) {
        return outcomes
            .simple(
                action,
                action.instanceId(),
                node.name(),
                Status.DUPLICATE,
                "lifecycle action already "
                    + (existing.get().state() == DrainMarker.State.DONE
                        ? "handled"
                        : "being handled")
                    + " for this node",
                received)
            .withLifecycle(r.report(null, null, "duplicate delivery"));
      }
    }
    // the heartbeat proves the hook and its token exist before anything is written: a forged or
    // stale lifecycle message cordons nothing
    if (!r.beat()) {
      return gone(r, node, received, "before the node was cordoned");
    }
    node = claims.claim(plan, node, marker);
    Instant cordoned = clock.instant();
    if (!plan.actions().contains(Action.DRAIN)) {
      String result = r.complete("CONTINUE");
      claims.mark(node.name(), marker.with(DrainMarker.State.DONE));
      return outcomes
          .cordoned(
              action,
              action.instanceId(),
              node.name(),
              plan,
              "tainted/cordoned; this kind does not drain; termination let go on",
              received,
              cordoned)
          .withLifecycle(r.report(result, null, LifecycleRound.noteFor(result)));
    }

    // drain, heartbeating while pods remain
    var selection = policy.select(cluster.podsOnNode(node.name()));
    var stillWaiting = new AtomicBoolean(true);
    var beating = r.heartbeatsBetween(sleeper, stillWaiting);
    Drainer.Result result =
        new Drainer(cluster, clock, beating, settings)
            .run(
                node.name(),
                selection,
                until,
                limit,
                lastRound && settings.forceDeleteAtDeadline());
    var planUntil =
        new DrainPolicy.Plan(
            plan.kind(),
            plan.actions(),
            until,
            lastRound
                ? "lifecycle drain limit (LIFECYCLE_MAX_DRAIN " + config.maxDrain() + ")"
                : "this invocation's time limit; the drain goes on in a follow-up");
    DrainOutcome drained =
        outcomes.drained(
            action,
            action.instanceId(),
            node.name(),
            planUntil,
            selection,
            result,
            received,
            cordoned);
    if (!stillWaiting.get()) {
      claims.mark(node.name(), marker.with(DrainMarker.State.DONE));
      return gone(r, node, received, "during the drain")
          .withLifecycle(
              r.report(
                  null,
                  null,
                  "the action stopped waiting during the drain (timed out or"
                      + " completed elsewhere); "
                      + drained.message()));
    }
    if (drained.status() == Status.DRAINED) {
      String completed = r.complete("CONTINUE");
      claims.mark(node.name(), marker.with(DrainMarker.State.DONE));
      return drained.withLifecycle(r.report(completed, null, LifecycleRound.noteFor(completed)));
    }
    if (lastRound) {
      String completed = r.complete(config.resultAtLimit());
      claims.mark(node.name(), marker.with(DrainMarker.State.DONE));
      return drained
          .with(
              Status.PARTIAL,
              drained.message()
                  + "; lifecycle drain limit "
                  + config.maxDrain()
                  + " reached: action completed with "
                  + config.resultAtLimit())
          .withLifecycle(
              r.report(completed, null, "limit reached; " + LifecycleRound.noteFor(completed)));
    }
    // keep the action alive until the follow-up arrives, then hand over
    if (!r.beat()) {
      claims.mark(node.name(), marker.with(DrainMarker.State.DONE));
      return gone(r, node, received, "at the end of this round");
    }
    Instant next = clock.instant().plus(config.checkInterval());
    r.schedule();
    return drained
        .with(
            Status.DRAINING,
            drained.podsNotEvicted().size()
                + " pod(s) still on the node: the drain goes on at "
                + next
                + " (round "
                + (r.round() + 1)
                + "), heartbeat kept alive until "
                + limit)
        .withLifecycle(r.report(null, next, "continues"));
  }

  private DrainOutcome gone(LifecycleRound r, NodeInfo node, Instant received, String when) {
    return outcomes
        .simple(
            r.action(),
            r.action().instanceId(),
            node.name(),
            Status.NO_ACTION,
            "lifecycle action no longer waiting "
                + when
                + " (timed out or completed elsewhere): drain stopped",
            received)
        .withLifecycle(r.report(null, null, "action gone"));
  }

  // ---- launch ----

  private DrainOutcome launch(LifecycleRound r, Instant received, Instant hardStop)
      throws InterruptedException {
    var action = r.action();
    Instant limit = r.firstReceived().plus(config.launchReadyTimeout());
    if (settings.options().dryRun()) {
      return outcomes
          .dryRun(
              action.meta().id(),
              "asg-launch",
              action.instanceId(),
              null,
              "dry run: nothing was changed",
              received,
              List.of(
                  "complete lifecycle action "
                      + action.hookName()
                      + " of "
                      + action.autoScalingGroupName()
                      + ": CONTINUE once the node is Ready, or at "
                      + limit))
          .withLifecycle(r.report(null, null, "dry run"));
    }
    Instant waitUntil = limit.isBefore(hardStop) ? limit : hardStop;
    Optional<NodeInfo> node;
    while (true) {
      node = claims.find(action.instanceId());
      if (node.isPresent() && cluster.nodeReady(node.get().name())) {
        String result = r.complete("CONTINUE");
        return outcomes
            .simple(
                action,
                action.instanceId(),
                node.get().name(),
                Status.HOOK_COMPLETED,
                "node " + node.get().name() + " is Ready: launch let go on",
                received)
            .withLifecycle(r.report(result, null, LifecycleRound.noteFor(result)));
      }
      Instant now = clock.instant();
      if (!now.isBefore(waitUntil)) {
        break;
      }
      Duration left = Duration.between(now, waitUntil);
      Duration poll = Duration.ofSeconds(2);
      sleeper.sleep(poll.compareTo(left) < 0 ? poll : left);
    }
    String nodeName = node.map(NodeInfo::name).orElse(null);
    if (!clock.instant().isBefore(limit) || !continuations.available()) {
      String result = r.complete("CONTINUE");
      return outcomes
          .simple(
              action,
              action.instanceId(),
              nodeName,
              Status.HOOK_COMPLETED,
              (nodeName == null ? "no node joined" : "node " + nodeName + " not Ready")
                  + " within LIFECYCLE_LAUNCH_READY_TIMEOUT "
                  + config.launchReadyTimeout()
                  + ": launch let go on",
              received)
          .withLifecycle(
              r.report(result, null, "ready timeout; " + LifecycleRound.noteFor(result)));
    }
    if (!r.beat()) {
      return outcomes
          .simple(
              action,
              action.instanceId(),
              nodeName,
              Status.NO_ACTION,
              "launch lifecycle action no longer waiting (timed out or completed elsewhere)",
              received)
          .withLifecycle(r.report(null, null, "action gone"));
    }
    Instant next = clock.instant().plus(config.checkInterval());
    r.schedule();
    return outcomes
        .simple(
            action,
            action.instanceId(),
            nodeName,
            Status.WAITING,
            (nodeName == null ? "no node for this instance yet" : "node " + nodeName + " not Ready")
                + ": checked again at "
                + next,
            received)
        .withLifecycle(r.report(null, next, "continues"));
  }
}

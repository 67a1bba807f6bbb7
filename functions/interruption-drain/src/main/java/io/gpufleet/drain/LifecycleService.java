package io.gpufleet.drain;

import io.gpufleet.core.event.FleetEvent.LifecycleAction;
import io.gpufleet.core.event.FleetEvent.LifecycleAction.Continuation;
import io.gpufleet.core.event.LifecycleEvents;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.LifecyclePort.Hook;
import io.gpufleet.drain.LifecyclePort.HookDeniedException;
import io.gpufleet.drain.LifecyclePort.HookGoneException;
import io.gpufleet.drain.LifecyclePort.HookUnavailableException;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.LifecycleReport;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.NodeInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EC2 Auto Scaling lifecycle hooks. Terminate: taint + cordon + drain the instance's node while
 * heartbeating the action, then CompleteLifecycleAction CONTINUE; a drain still going when the
 * invocation ends is resumed by a delayed continuation (heartbeat sent first), until {@code
 * LIFECYCLE_MAX_DRAIN} after the first delivery, where the action is completed with {@code
 * LIFECYCLE_RESULT_AT_LIMIT}. Launch: CONTINUE once the node is Ready (or at the ready timeout). An
 * instance with no node here is let go at once (nothing to drain).
 */
final class LifecycleService {
  private static final Logger LOG = LoggerFactory.getLogger(LifecycleService.class);

  /** Keeps the claim past the follow-up's due time, so a redelivery cannot take the node over. */
  static final Duration CLAIM_SLACK = Duration.ofMinutes(2);

  private final DrainService drains;
  private final DrainSettings settings;
  private final DrainSettings.Lifecycle config;
  private final DrainClusterPort cluster;
  private final LifecyclePort hooks;
  private final ContinuationPort continuations;
  private final Clock clock;
  private final Sleeper sleeper;

  LifecycleService(
      DrainService drains,
      DrainSettings settings,
      DrainClusterPort cluster,
      LifecyclePort hooks,
      ContinuationPort continuations,
      Clock clock,
      Sleeper sleeper) {
    this.drains = drains;
    this.settings = settings;
    this.config = settings.options().lifecycle();
    this.cluster = cluster;
    this.hooks = hooks;
    this.continuations = continuations;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /** Where this invocation stands in the action's life. */
  private record Round(
      LifecycleAction action, Hook hook, Instant firstReceived, int round, AtomicInteger beats) {
    LifecycleReport report(String result, Instant nextCheck, String note) {
      return new LifecycleReport(
          action.autoScalingGroupName(),
          action.hookName(),
          action.transition(),
          result,
          beats.get(),
          round,
          firstReceived,
          nextCheck,
          note);
    }
  }

  DrainOutcome handle(LifecycleAction action, Instant received, Instant hardStop) {
    var c = action.continuation();
    var round =
        new Round(
            action,
            new Hook(
                action.autoScalingGroupName(),
                action.hookName(),
                action.token(),
                action.instanceId()),
            c == null ? received : c.firstReceived(),
            c == null ? 0 : c.round(),
            new AtomicInteger(c == null ? 0 : c.heartbeats()));
    try {
      return action.terminating()
          ? terminate(round, received, hardStop)
          : launch(round, received, hardStop);
    } catch (HookDeniedException e) {
      return drains
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

  private DrainOutcome terminate(Round r, Instant received, Instant hardStop)
      throws InterruptedException {
    var action = r.action();
    var plan = drains.policy().plan(action, hardStop);
    if (settings.options().dryRun()) {
      return drains
          .dryRunOutcome(
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
    Optional<NodeInfo> found = cluster.findNodeByInstanceId(action.instanceId());
    if (found.isEmpty()) {
      String result = completeQuietly(r, "CONTINUE");
      return drains
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
          .withLifecycle(r.report(result, null, noteFor(result)));
    }
    NodeInfo node = found.get();
    String excluded = drains.policy().exclusion(node);
    if (excluded != null || plan.actions().isEmpty()) {
      String result = completeQuietly(r, "CONTINUE");
      return drains
          .simple(
              action,
              action.instanceId(),
              node.name(),
              excluded != null ? Status.EXCLUDED : Status.NO_ACTION,
              (excluded != null ? excluded : "no actions configured for " + plan.kind())
                  + "; termination let go on",
              received)
          .withLifecycle(r.report(result, null, noteFor(result)));
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
        return drains
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
    if (!beat(r)) {
      return gone(r, node, received, "before the node was cordoned");
    }
    if (!cluster.patchNode(node, drains.policy().claim(plan, node, marker))) {
      // the node changed since it was read: one fresh read, then an unguarded marker write
      node = cluster.getNode(node.name()).orElse(node);
      cluster.patchNode(node, drains.policy().claim(plan, node, marker));
    }
    Instant cordoned = clock.instant();
    if (!plan.actions().contains(Action.DRAIN)) {
      String result = completeQuietly(r, "CONTINUE");
      drains.patchMarker(node.name(), done(marker));
      return new DrainOutcome(
              action.meta().id(),
              plan.kind().label(),
              action.instanceId(),
              settings.clusterName(),
              node.name(),
              Status.CORDONED,
              "tainted/cordoned; this kind does not drain; termination let go on",
              plan.actions(),
              received,
              null,
              null,
              new DrainOutcome.Timings(DrainService.ms(received, cordoned), null, null),
              List.of(),
              List.of(),
              List.of(),
              List.of())
          .withLifecycle(r.report(result, null, noteFor(result)));
    }

    // drain, heartbeating while pods remain
    var selection = drains.policy().select(cluster.podsOnNode(node.name()));
    var stillWaiting = new AtomicBoolean(true);
    var beating = new Heartbeats(r, stillWaiting).between(sleeper);
    Drainer.Result result =
        new Drainer(cluster, clock, beating, settings)
            .run(
                node.name(),
                selection,
                until,
                limit,
                lastRound && settings.forceDeleteAtDeadline());
    var planUntil =
        new io.gpufleet.drain.DrainPolicy.Plan(
            plan.kind(),
            plan.actions(),
            until,
            lastRound
                ? "lifecycle drain limit (LIFECYCLE_MAX_DRAIN " + config.maxDrain() + ")"
                : "this invocation's time limit; the drain goes on in a follow-up");
    DrainOutcome drained =
        drains.outcome(
            action,
            action.instanceId(),
            node.name(),
            planUntil,
            selection,
            result,
            received,
            cordoned);
    if (!stillWaiting.get()) {
      drains.patchMarker(node.name(), done(marker));
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
      String completed = completeQuietly(r, "CONTINUE");
      drains.patchMarker(node.name(), done(marker));
      return drained.withLifecycle(r.report(completed, null, noteFor(completed)));
    }
    if (lastRound) {
      String completed = completeQuietly(r, config.resultAtLimit());
      drains.patchMarker(node.name(), done(marker));
      return drained
          .with(
              Status.PARTIAL,
              drained.message()
                  + "; lifecycle drain limit "
                  + config.maxDrain()
                  + " reached: action completed with "
                  + config.resultAtLimit())
          .withLifecycle(r.report(completed, null, "limit reached; " + noteFor(completed)));
    }
    // keep the action alive until the follow-up arrives, then hand over
    if (!beat(r)) {
      drains.patchMarker(node.name(), done(marker));
      return gone(r, node, received, "at the end of this round");
    }
    Instant next = clock.instant().plus(config.checkInterval());
    schedule(r, next);
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

  private static DrainMarker done(DrainMarker m) {
    return new DrainMarker(m.eventId(), m.kind(), DrainMarker.State.DONE, m.until());
  }

  private DrainOutcome gone(Round r, NodeInfo node, Instant received, String when) {
    return drains
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

  private DrainOutcome launch(Round r, Instant received, Instant hardStop)
      throws InterruptedException {
    var action = r.action();
    Instant limit = r.firstReceived().plus(config.launchReadyTimeout());
    if (settings.options().dryRun()) {
      return DrainOutcome.dryRun(
              action.meta().id(),
              "asg-launch",
              action.instanceId(),
              settings.clusterName(),
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
      node = cluster.findNodeByInstanceId(action.instanceId());
      if (node.isPresent() && cluster.nodeReady(node.get().name())) {
        String result = completeQuietly(r, "CONTINUE");
        return drains
            .simple(
                action,
                action.instanceId(),
                node.get().name(),
                Status.HOOK_COMPLETED,
                "node " + node.get().name() + " is Ready: launch let go on",
                received)
            .withLifecycle(r.report(result, null, noteFor(result)));
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
      String result = completeQuietly(r, "CONTINUE");
      return drains
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
          .withLifecycle(r.report(result, null, "ready timeout; " + noteFor(result)));
    }
    if (!beat(r)) {
      return drains
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
    schedule(r, next);
    return drains
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

  // ---- Auto Scaling and the continuation ----

  /** Heartbeats once; false when the action is gone. */
  private boolean beat(Round r) {
    try {
      hooks.heartbeat(r.hook());
      r.beats().incrementAndGet();
      return true;
    } catch (HookGoneException e) {
      LOG.warn("lifecycle action gone for {}: {}", r.action().instanceId(), e.getMessage());
      return false;
    }
  }

  /** Completes the action; returns the result sent, or null when it was no longer waiting. */
  private String completeQuietly(Round r, String result) {
    try {
      hooks.complete(r.hook(), result);
      return result;
    } catch (HookGoneException e) {
      LOG.info("lifecycle action of {} already gone: {}", r.action().instanceId(), e.getMessage());
      return null;
    }
  }

  private static String noteFor(String result) {
    return result == null
        ? "the action was no longer waiting (completed elsewhere or timed out)"
        : "completed with " + result;
  }

  private void schedule(Round r, Instant next) {
    var c =
        new Continuation(
            r.action().originalEventId(), r.round() + 1, r.firstReceived(), r.beats().get());
    var body = LifecycleEvents.continuationEnvelope(r.action(), c, clock.instant());
    continuations.schedule(Json.write(body), config.checkInterval());
  }

  /**
   * Heartbeats every LIFECYCLE_HEARTBEAT_INTERVAL while the drain runs, from the drain's own waits
   * (it waits at least every {@link Drainer#BACKOFF_MAX} while pods remain): after a wait, the one
   * thread that finds a heartbeat due sends it. No thread of its own, so a heartbeat happens at a
   * point of the drain's time, never ahead of it.
   */
  private final class Heartbeats {
    private final Round r;
    private final AtomicBoolean stillWaiting;
    private final AtomicReference<Instant> next;
    private volatile boolean stopped;

    Heartbeats(Round r, AtomicBoolean stillWaiting) {
      this.r = r;
      this.stillWaiting = stillWaiting;
      this.next = new AtomicReference<>(clock.instant().plus(config.heartbeatInterval()));
    }

    Sleeper between(Sleeper waits) {
      return d -> {
        waits.sleep(d);
        beatIfDue();
      };
    }

    private void beatIfDue() {
      Instant due = next.get();
      Instant now = clock.instant();
      if (stopped
          || now.isBefore(due)
          || !next.compareAndSet(due, now.plus(config.heartbeatInterval()))) {
        return;
      }
      try {
        if (!beat(r)) {
          stillWaiting.set(false);
          stopped = true;
        }
      } catch (HookUnavailableException e) {
        // the next one tries again; the hook's timeout is longer than the interval
        LOG.warn("lifecycle heartbeat failed: {}", e.getMessage());
      } catch (RuntimeException e) {
        LOG.warn("lifecycle heartbeat stopped: {}", e.toString());
        stopped = true;
      }
    }
  }
}

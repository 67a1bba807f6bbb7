package io.gpufleet.drain;

import io.gpufleet.core.event.FleetEvent.LifecycleAction;
import io.gpufleet.core.event.FleetEvent.LifecycleAction.Continuation;
import io.gpufleet.core.event.LifecycleEvents;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.LifecyclePort.Hook;
import io.gpufleet.drain.LifecyclePort.HookGoneException;
import io.gpufleet.drain.LifecyclePort.HookUnavailableException;
import io.gpufleet.drain.model.DrainOutcome.LifecycleReport;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where this invocation stands in a lifecycle action's life, and its calls to Auto Scaling and the
 * continuation queue: heartbeat, complete, schedule the follow-up, heartbeat while a drain runs.
 */
final class LifecycleRound {
  private static final Logger LOG = LoggerFactory.getLogger(LifecycleService.class);

  private final LifecycleAction action;
  private final Hook hook;
  private final Instant firstReceived;
  private final int round;
  private final AtomicInteger beats;
  private final LifecyclePort hooks;
  private final ContinuationPort continuations;
  private final DrainSettings.Lifecycle config;
  private final Clock clock;

  /** The round {@code action} starts (its first delivery) or continues. */
  LifecycleRound(
      LifecycleAction action,
      Instant received,
      LifecyclePort hooks,
      ContinuationPort continuations,
      DrainSettings.Lifecycle config,
      Clock clock) {
    var c = action.continuation();
    this.action = action;
    this.hook =
        new Hook(
            action.autoScalingGroupName(), action.hookName(), action.token(), action.instanceId());
    this.firstReceived = c == null ? received : c.firstReceived();
    this.round = c == null ? 0 : c.round();
    this.beats = new AtomicInteger(c == null ? 0 : c.heartbeats());
    this.hooks = hooks;
    this.continuations = continuations;
    this.config = config;
    this.clock = clock;
  }

  LifecycleAction action() {
    return action;
  }

  Instant firstReceived() {
    return firstReceived;
  }

  /** 0 for the first invocation. */
  int round() {
    return round;
  }

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

  /** Heartbeats once; false when the action is gone. */
  boolean beat() {
    try {
      hooks.heartbeat(hook);
      beats.incrementAndGet();
      return true;
    } catch (HookGoneException e) {
      LOG.warn("lifecycle action gone for {}: {}", action.instanceId(), e.getMessage());
      return false;
    }
  }

  /** Completes the action; returns the result sent, or null when it was no longer waiting. */
  String complete(String result) {
    try {
      hooks.complete(hook, result);
      return result;
    } catch (HookGoneException e) {
      LOG.info("lifecycle action of {} already gone: {}", action.instanceId(), e.getMessage());
      return null;
    }
  }

  static String noteFor(String result) {
    return result == null
        ? "the action was no longer waiting (completed elsewhere or timed out)"
        : "completed with " + result;
  }

  /** Sends the follow-up that resumes this action in its next round. */
  void schedule() {
    var c = new Continuation(action.originalEventId(), round + 1, firstReceived, beats.get());
    var body = LifecycleEvents.continuationEnvelope(action, c, clock.instant());
    continuations.schedule(Json.write(body), config.checkInterval());
  }

  /**
   * {@code waits} with a heartbeat every LIFECYCLE_HEARTBEAT_INTERVAL while the drain runs, from
   * the drain's own waits (it waits at least every {@link Drainer#BACKOFF_MAX} while pods remain):
   * after a wait, the one thread that finds a heartbeat due sends it. No thread of its own, so a
   * heartbeat happens at a point of the drain's time, never ahead of it. {@code stillWaiting} turns
   * false when the action is gone.
   */
  Sleeper heartbeatsBetween(Sleeper waits, AtomicBoolean stillWaiting) {
    var heartbeats = new Heartbeats(stillWaiting);
    return d -> {
      waits.sleep(d);
      heartbeats.beatIfDue();
    };
  }

  private final class Heartbeats {
    private final AtomicBoolean stillWaiting;
    private final AtomicReference<Instant> next;
    private volatile boolean stopped;

    Heartbeats(AtomicBoolean stillWaiting) {
      this.stillWaiting = stillWaiting;
      this.next = new AtomicReference<>(clock.instant().plus(config.heartbeatInterval()));
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
        if (!beat()) {
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

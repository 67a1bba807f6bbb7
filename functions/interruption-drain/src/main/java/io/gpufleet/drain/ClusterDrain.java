package io.gpufleet.drain;

import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.DryRunReport;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * The drains of one cluster: the event drain ({@link EventDrain}) and, with Auto Scaling lifecycle
 * hooks, the lifecycle drain ({@link LifecycleService}), over the same node claims and outcome
 * builder ({@link ClusterTools}); each outcome is reported here, once, through this cluster's
 * {@link DrainReporting}. {@link ClusterRouter} hands each instance to the cluster that has its
 * node.
 */
public final class ClusterDrain {
  private final ClusterTools tools;
  private final EventDrain events;
  private final LifecycleService lifecycle;
  private final OutcomeReporter<DrainOutcome> reporter;

  public ClusterDrain(
      DrainSettings settings,
      DrainClusterPort cluster,
      OutcomeReporter<DrainOutcome> reporter,
      Clock clock,
      Sleeper sleeper) {
    this(settings, cluster, reporter, clock, sleeper, null, ContinuationPort.NONE);
  }

  /**
   * With Auto Scaling lifecycle hooks: {@code hooks} heartbeats and completes them (null: lifecycle
   * actions are not handled), {@code continuations} resumes a drain that outlives one invocation.
   */
  public ClusterDrain(
      DrainSettings settings,
      DrainClusterPort cluster,
      OutcomeReporter<DrainOutcome> reporter,
      Clock clock,
      Sleeper sleeper,
      LifecyclePort hooks,
      ContinuationPort continuations) {
    this.tools = ClusterTools.of(settings, cluster, continuations, clock, sleeper);
    this.events = new EventDrain(tools);
    this.lifecycle = hooks == null ? null : new LifecycleService(tools, hooks);
    this.reporter = reporter;
  }

  public DrainSettings settings() {
    return tools.settings();
  }

  DrainClusterPort cluster() {
    return tools.cluster();
  }

  Clock clock() {
    return tools.clock();
  }

  DrainOutcomes outcomes() {
    return tools.outcomes();
  }

  /** Sends {@code outcome} to every sink of this cluster. */
  void report(DrainOutcome outcome) {
    reporter.report(outcome);
  }

  /** Replacement before removal for the instances of opted-in Auto Scaling groups. */
  void replaceEarlyWith(ReplacementPort groups) {
    events.replaceEarlyWith(groups);
  }

  /** One instance of an interruption event whose node is (or would be) in this cluster. */
  DrainOutcome drainInstance(
      FleetEvent.InstanceEvent event, String instanceId, Instant received, Instant hardStop) {
    DrainOutcome outcome;
    try {
      outcome = events.drain(event, instanceId, received, hardStop);
      outcome = outcome.withRegion(event.meta().region()).withCaveats(event.meta().caveats());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while draining " + instanceId, e);
    }
    report(outcome);
    return outcome;
  }

  /** A completable lifecycle action for an instance of this cluster (or of none). */
  List<DrainOutcome> drainLifecycle(
      FleetEvent.LifecycleAction action, Instant received, Instant hardStop) {
    DrainOutcome outcome =
        lifecycle == null
            ? tools
                .outcomes()
                .simple(
                    action,
                    action.instanceId(),
                    null,
                    Status.NO_ACTION,
                    "no Auto Scaling client configured: lifecycle hooks are not handled here",
                    received)
            : lifecycle.handle(action, received, hardStop);
    outcome = outcome.withRegion(action.meta().region());
    report(outcome);
    return List.of(outcome);
  }

  /** What draining this instance's node would do now; reads only. */
  DryRunReport dryRun(String instanceId) {
    return tools.dryRuns().report(instanceId);
  }
}

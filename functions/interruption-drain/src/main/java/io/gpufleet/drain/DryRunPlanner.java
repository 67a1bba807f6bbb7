package io.gpufleet.drain;

import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DryRunReport;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a drain would do to an instance's node, read only: the {@code DRAIN_DRY_RUN} outcome of an
 * event (event drain and lifecycle drain alike) and the CLI's {@link DryRunReport}.
 */
final class DryRunPlanner {
  private final String clusterName;
  private final DrainPolicy policy;
  private final DrainClusterPort cluster;
  private final DrainOutcomes outcomes;

  DryRunPlanner(
      String clusterName, DrainPolicy policy, DrainClusterPort cluster, DrainOutcomes outcomes) {
    this.clusterName = clusterName;
    this.policy = policy;
    this.cluster = cluster;
    this.outcomes = outcomes;
  }

  /**
   * DRAIN_DRY_RUN: what this event would do to the instance's node, read only; {@code after} are
   * steps that follow the drain (e.g. completing a lifecycle action).
   */
  DrainOutcome outcome(
      FleetEvent.InstanceEvent event,
      String instanceId,
      DrainPolicy.Plan plan,
      Instant received,
      List<String> after) {
    var found = cluster.findNodeByInstanceId(instanceId);
    var planned = new ArrayList<String>();
    String message;
    String nodeName = found.map(NodeInfo::name).orElse(null);
    if (found.isEmpty()) {
      message =
          "dry run: no node of cluster "
              + clusterName
              + " has providerID .../"
              + instanceId
              + "; nothing would be done to a node";
      planned.addAll(after);
    } else if (policy.exclusion(found.get()) != null) {
      message = "dry run: " + policy.exclusion(found.get());
      planned.addAll(after);
    } else if (plan.actions().isEmpty()) {
      message = "dry run: no actions configured for " + plan.kind();
      planned.addAll(after);
    } else {
      planned.addAll(policy.plannedNodeSteps(plan, found.get()));
      if (plan.actions().contains(Action.DRAIN)) {
        var report = report(instanceId);
        report.wouldEvict().forEach(p -> planned.add("evict " + p));
        report
            .wouldWaitOrBlock()
            .forEach(p -> planned.add("evict " + p.pod() + " (would wait: " + p.reason() + ")"));
        report.alreadyTerminating().forEach(p -> planned.add("wait for " + p + " (terminating)"));
        report.wouldSkip().forEach(p -> planned.add("skip " + p.pod() + " (" + p.reason() + ")"));
      }
      planned.addAll(after);
      message =
          "dry run (DRAIN_DRY_RUN=true): nothing was changed; "
              + planned.size()
              + " planned step(s), deadline "
              + plan.deadline()
              + " ("
              + plan.deadlineBasis()
              + ")";
    }
    return outcomes.dryRun(
        event.meta().id(), plan.kind().label(), instanceId, nodeName, message, received, planned);
  }

  /** What draining this instance's node would do now; reads only. */
  DryRunReport report(String instanceId) {
    var found = cluster.findNodeByInstanceId(instanceId);
    if (found.isEmpty()) {
      return new DryRunReport(
          instanceId,
          clusterName,
          null,
          false,
          List.of(),
          List.of(),
          List.of(),
          List.of(),
          "no node of cluster " + clusterName + " has providerID .../" + instanceId);
    }
    String node = found.get().name();
    var selection = policy.select(cluster.podsOnNode(node));
    var evictable = selection.evictable();
    var refusals = DrainPolicy.predictRefusals(evictable, cluster.budgetsFor(evictable));
    var wouldEvict =
        evictable.stream().map(PodInfo::key).filter(k -> !refusals.containsKey(k)).toList();
    return new DryRunReport(
        instanceId,
        clusterName,
        node,
        true,
        wouldEvict,
        List.copyOf(refusals.values()),
        selection.skipped(),
        selection.terminating().stream().map(PodInfo::key).toList(),
        wouldEvict.size()
            + " pod(s) would be evicted at once, "
            + refusals.size()
            + " would wait or be refused, "
            + selection.skipped().size()
            + " skipped");
  }
}

package io.gpufleet.drain;

import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.PodInfo;
import io.gpufleet.drain.model.PodReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where every {@link DrainOutcome} of one cluster is made, for the event drain ({@link
 * EventDrain}), the lifecycle drain ({@link LifecycleService}), the dry run and the stack's entry
 * ({@link DrainService}, {@link ClusterRouter}): the decisions say what happened, this class says
 * it in the outcome's fields. Reporting them is {@link ClusterDrain#report}'s ({@link
 * DrainReporting}).
 */
final class DrainOutcomes {
  private final String clusterName;
  private final DrainClusterPort cluster;

  /** {@code cluster} only explains, after a drain, which budget held a blocked pod. */
  DrainOutcomes(String clusterName, DrainClusterPort cluster) {
    this.clusterName = clusterName;
    this.cluster = cluster;
  }

  String clusterName() {
    return clusterName;
  }

  /** A payload that could not be understood. */
  DrainOutcome rejected(DecodeResult.Rejected r, Instant received) {
    return DrainOutcome.builder(
            r.eventId(), null, null, clusterName, null, Status.REJECTED, r.reason(), received)
        .region(r.region())
        .build();
  }

  /** An event this function does not act on at all (no instance, or a kind it does not know). */
  DrainOutcome notForAnyNode(FleetEvent event, String why, Instant received) {
    return DrainOutcome.builder(
            event.meta().id(), null, null, clusterName, null, Status.NO_ACTION, why, received)
        .region(event.meta().region())
        .build();
  }

  /**
   * An instance no cluster of the stack ({@code clusters}, comma-separated) has a node for: a
   * routed instance, or a Capacity Block with no instance anywhere ({@code instanceId} null).
   */
  static DrainOutcome inNoCluster(
      FleetEvent event,
      DrainKind kind,
      String instanceId,
      String clusters,
      String message,
      Instant received) {
    return DrainOutcome.builder(
            event.meta().id(),
            kind.label(),
            instanceId,
            clusters,
            null,
            Status.NOT_IN_CLUSTER,
            message,
            received)
        .region(event.meta().region())
        .build();
  }

  /** An outcome that names only what happened to the instance (and its node, when found). */
  DrainOutcome simple(
      FleetEvent.InstanceEvent event,
      String instanceId,
      String node,
      Status status,
      String message,
      Instant received) {
    return DrainOutcome.simple(
        event.meta().id(),
        DrainKind.of(event).label(),
        instanceId,
        clusterName,
        node,
        status,
        message,
        received);
  }

  /** Tainted and/or cordoned, not drained: {@code cordoned} is when the claim patch went in. */
  DrainOutcome cordoned(
      FleetEvent.InstanceEvent event,
      String instanceId,
      String node,
      DrainPolicy.Plan plan,
      String message,
      Instant received,
      Instant cordoned) {
    return DrainOutcome.builder(
            event.meta().id(),
            plan.kind().label(),
            instanceId,
            clusterName,
            node,
            Status.CORDONED,
            message,
            received)
        .actions(plan.actions())
        .timings(new DrainOutcome.Timings(ms(received, cordoned), null, null))
        .build();
  }

  /** A dry run's outcome: {@code planned} lists the steps, nothing was changed. */
  DrainOutcome dryRun(
      String eventId,
      String kind,
      String instanceId,
      String node,
      String message,
      Instant received,
      List<String> planned) {
    return DrainOutcome.dryRun(
        eventId, kind, instanceId, clusterName, node, message, received, planned);
  }

  /**
   * What a drain did: DRAINED when every evictable pod went, else PARTIAL naming the pods that did
   * not make it (a pod a budget held says which budget).
   */
  DrainOutcome drained(
      FleetEvent.InstanceEvent event,
      String instanceId,
      String nodeName,
      DrainPolicy.Plan plan,
      DrainPolicy.Selection selection,
      Drainer.Result result,
      Instant received,
      Instant cordoned) {
    var evicted = new ArrayList<String>();
    var notEvicted = new ArrayList<PodReport>();
    var capped = new ArrayList<PodReport>();
    var blockedPods = new ArrayList<PodInfo>();
    for (PodReport r : result.reports()) {
      if (r.madeIt()) {
        evicted.add(r.pod());
      } else {
        notEvicted.add(r);
      }
      if (r.graceCapped()
          && (r.status() == PodReport.Status.EVICTED
              || r.status() == PodReport.Status.STILL_TERMINATING)) {
        capped.add(r);
      }
    }
    if (notEvicted.stream().anyMatch(r -> r.status() == PodReport.Status.BLOCKED)) {
      for (var p : selection.evictable()) {
        if (notEvicted.stream()
            .anyMatch(r -> r.pod().equals(p.key()) && r.status() == PodReport.Status.BLOCKED)) {
          blockedPods.add(p);
        }
      }
      Map<String, List<DrainClusterPort.BudgetInfo>> why = budgets(blockedPods);
      notEvicted.replaceAll(
          r ->
              why.containsKey(r.pod())
                  ? r.with(
                      r.status(),
                      why.get(r.pod()).get(0).describe()
                          + " allowed no eviction before the deadline (last answer: "
                          + r.reason()
                          + ")")
                  : r);
    }
    boolean complete = notEvicted.isEmpty();
    Instant gone = result.allGoneAt();
    boolean deadlineMet = complete && gone != null && !gone.isAfter(plan.deadline());
    String message =
        complete
            ? evicted.size()
                + " pod(s) evicted, "
                + selection.skipped().size()
                + " skipped; deadline "
                + plan.deadlineBasis()
            : notEvicted.size()
                + " pod(s) did not make it: "
                + String.join(", ", notEvicted.stream().map(PodReport::pod).toList());
    return DrainOutcome.builder(
            event.meta().id(),
            plan.kind().label(),
            instanceId,
            clusterName,
            nodeName,
            complete ? Status.DRAINED : Status.PARTIAL,
            message,
            received)
        .actions(plan.actions())
        .deadline(plan.deadline(), deadlineMet)
        .timings(
            new DrainOutcome.Timings(
                ms(received, cordoned),
                result.allIssuedAt() == null
                    ? ms(received, cordoned)
                    : ms(received, result.allIssuedAt()),
                gone == null ? null : ms(received, gone)))
        .pods(
            List.copyOf(evicted), List.copyOf(notEvicted), selection.skipped(), List.copyOf(capped))
        .build();
  }

  private Map<String, List<DrainClusterPort.BudgetInfo>> budgets(List<PodInfo> pods) {
    try {
      return cluster.budgetsFor(pods);
    } catch (RuntimeException e) {
      return Map.of();
    }
  }

  static long ms(Instant from, Instant to) {
    return Duration.between(from, to).toMillis();
  }
}

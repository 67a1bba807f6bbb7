package io.gpufleet.drain;

import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DryRunReport;
import io.gpufleet.drain.model.NodeInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The drain's entry for one decoded event, the same for one cluster or a stack of them: decides
 * what the event is to the drain (a rejection, nothing for a node, a lifecycle action, instances to
 * drain, a Capacity Block whose instances are to be found first), and hands each instance to the
 * dispatcher ({@link ClusterRouter}), which hands it to the drain of its cluster ({@link
 * ClusterDrain}). Instances of one event drain side by side. Throws only for transient cluster
 * failures (so Lambda retries and then dead-letters); everything else ends in an outcome.
 */
public final class DrainService {
  private final ClusterRouter clusters;

  /** Where the instances of a Capacity Block are found besides Karpenter's label (null: none). */
  private volatile CapacityReservationPort reservations;

  /** One cluster, no lifecycle hooks. */
  public DrainService(
      DrainSettings settings,
      DrainClusterPort cluster,
      OutcomeReporter<DrainOutcome> reporter,
      java.time.Clock clock,
      Sleeper sleeper) {
    this(settings, cluster, reporter, clock, sleeper, null, ContinuationPort.NONE);
  }

  /**
   * One cluster with Auto Scaling lifecycle hooks: {@code hooks} heartbeats and completes them,
   * {@code continuations} resumes a drain that outlives one invocation.
   */
  public DrainService(
      DrainSettings settings,
      DrainClusterPort cluster,
      OutcomeReporter<DrainOutcome> reporter,
      java.time.Clock clock,
      Sleeper sleeper,
      LifecyclePort hooks,
      ContinuationPort continuations) {
    this(
        ClusterRouter.single(
            new ClusterDrain(settings, cluster, reporter, clock, sleeper, hooks, continuations)));
  }

  /** The clusters {@code clusters} dispatches to (the first answers for the stack). */
  public DrainService(ClusterRouter clusters) {
    this.clusters = clusters;
  }

  /** The first cluster's settings (the only cluster's, unless routed). */
  public DrainSettings settings() {
    return clusters.home().settings();
  }

  /** The names of the clusters this service drains (one unless routed). */
  public List<String> clusterNames() {
    return clusters.names();
  }

  /** Handles a decoded payload; {@code hardStop} is when the function must have answered. */
  public List<DrainOutcome> handle(DecodeResult decoded, Instant hardStop) {
    return switch (decoded) {
      case DecodeResult.Rejected r -> {
        var home = clusters.home();
        var outcome = home.outcomes().rejected(r, home.clock().instant());
        home.report(outcome);
        yield List.of(outcome);
      }
      case DecodeResult.Decoded d -> handle(d.event(), hardStop);
    };
  }

  public List<DrainOutcome> handle(FleetEvent event, Instant hardStop) {
    var home = clusters.home();
    Instant received = home.clock().instant();
    if (event instanceof FleetEvent.CapacityBlockExpiring block && block.instanceIds().isEmpty()) {
      return handleCapacityBlock(block, received, hardStop);
    }
    if (!(event instanceof FleetEvent.InstanceEvent ie)) {
      var outcome =
          home.outcomes()
              .notForAnyNode(
                  event,
                  event instanceof FleetEvent.Unsupported u ? u.why() : "not an instance event",
                  received);
      home.report(outcome);
      return List.of(outcome);
    }
    // a lifecycle action without its group or hook cannot be completed: drained like a warning
    if (ie instanceof FleetEvent.LifecycleAction action && action.completable()) {
      return clusters.dispatchLifecycle(action, received, hardStop);
    }
    List<String> ids = ie.instanceIds();
    if (ids.size() == 1) {
      return List.of(clusters.dispatch(ie, ids.get(0), received, hardStop));
    }
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<DrainOutcome>>();
      for (String id : ids) {
        futures.add(pool.submit(() -> clusters.dispatch(ie, id, received, hardStop)));
      }
      var out = new ArrayList<DrainOutcome>();
      for (var f : futures) {
        out.add(f.get());
      }
      return out;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Finds an instance's node from what {@code directory} (EC2 DescribeInstances) says of it: the
   * node named by its private DNS name, in the cluster its tags name, checked by providerID; the
   * node listing stays the fallback.
   */
  public DrainService lookUpInstancesWith(InstanceLookupPort directory) {
    clusters.useInstanceDirectory(directory);
    return this;
  }

  /**
   * Replacement before removal ({@link EarlyReplacement}) for the instances of Auto Scaling groups
   * that opted in with the tag {@link EarlyReplacement#OPT_IN}, on every cluster of the stack.
   */
  public DrainService replaceEarlyWith(ReplacementPort groups) {
    for (var m : clusters.members()) {
      m.drain().replaceEarlyWith(groups);
    }
    return this;
  }

  /** Finds a Capacity Block's instances through EC2 too (nodes without Karpenter's label). */
  public DrainService findReservationInstancesWith(CapacityReservationPort port) {
    this.reservations = port;
    return this;
  }

  /** What draining this instance's node in the first cluster would do now; reads only. */
  public DryRunReport dryRun(String instanceId) {
    return clusters.home().dryRun(instanceId);
  }

  /**
   * A Capacity Block names a reservation, not instances. Its instances are the nodes Karpenter
   * labelled with the reservation id (in every cluster of the stack) and, when EC2 is asked, the
   * instances EC2 runs in the reservation: managed node group and self-managed nodes carry no such
   * label, only their instance id in spec.providerID. Each is then drained like any other instance
   * of the event (an EC2 instance no cluster has a node for comes out NOT_IN_CLUSTER).
   */
  private List<DrainOutcome> handleCapacityBlock(
      FleetEvent.CapacityBlockExpiring block, Instant received, Instant hardStop) {
    var ids = new LinkedHashSet<String>();
    var ports = clusters.members().stream().map(ClusterRouter.Member::port).toList();
    // one unreachable cluster must not keep the others' block nodes from draining: its label
    // lookup is skipped here, and its instances (named by EC2) fail their own routing, so the
    // event is retried (the drained ones then come out DUPLICATE)
    RuntimeException unreachable = null;
    for (DrainClusterPort port : ports) {
      try {
        for (NodeInfo node : port.nodesInCapacityReservation(block.capacityReservationId())) {
          String pid = node.providerId();
          if (pid != null && pid.lastIndexOf('/') >= 0) {
            ids.add(pid.substring(pid.lastIndexOf('/') + 1));
          }
        }
      } catch (DrainClusterPort.ClusterUnavailableException e) {
        if (ports.size() == 1) {
          throw e;
        }
        unreachable = e;
      }
    }
    var ec2 = reservations;
    if (ec2 != null) {
      ids.addAll(ec2.runningInstances(block.capacityReservationId()));
    }
    if (ids.isEmpty() && unreachable != null) {
      throw unreachable;
    }
    if (ids.isEmpty()) {
      var names = clusterNames();
      var outcome =
          DrainOutcomes.inNoCluster(
              block,
              DrainKind.CAPACITY_BLOCK_EXPIRING,
              null,
              String.join(",", names),
              "no node of cluster"
                  + (names.size() > 1 ? "s " + names : " " + settings().clusterName())
                  + " runs in capacity block "
                  + block.capacityReservationId()
                  + " (label "
                  + DrainClusterPort.CAPACITY_RESERVATION_LABEL
                  + (ec2 == null
                      ? "; EC2 not asked for the block's instances"
                      : "; EC2 runs no instance in it")
                  + ")",
              received);
      clusters.home().report(outcome);
      return List.of(outcome);
    }
    return handle(block.withInstances(List.copyOf(ids)), hardStop);
  }
}

package io.gpufleet.drain;

import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Executors;

/**
 * The dispatcher: hands each instance of an event to the drain ({@link ClusterDrain}) of the
 * cluster that has its node. With one cluster that is its drain, without a lookup. With several
 * (the stack's {@code CLUSTER_NAMES}) the instance goes to the one cluster whose node has it as
 * providerID: first from what each cluster already knows (its last node listing, no request), then
 * the negative cache, then the clusters the instance's EC2 tags name, then one lookup in every
 * cluster at once. An instance no cluster has is remembered in the negative cache, so a foreign
 * instance's next events do not list every cluster's nodes again.
 */
public final class ClusterRouter {
  /** One cluster of the stack: its name and its drain. */
  public record Member(String name, ClusterDrain drain) {
    /** The cluster's Kubernetes port. */
    DrainClusterPort port() {
      return drain.cluster();
    }
  }

  /** Where an instance goes: {@code member} empty = no listed cluster has its node. */
  record Route(Optional<Member> member, boolean fromNegativeCache) {}

  private final List<Member> members;
  private final NegativeCache foreign;
  private final boolean routes;

  /** Routes among {@code members} (in the order their names are reported). */
  public ClusterRouter(List<Member> members, NegativeCache foreign) {
    this(members, java.util.Objects.requireNonNull(foreign, "negative cache"), true);
  }

  private ClusterRouter(List<Member> members, NegativeCache foreign, boolean routes) {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("at least one cluster");
    }
    this.members = List.copyOf(members);
    this.foreign = foreign;
    this.routes = routes;
  }

  /** One cluster, no routing: every instance goes to {@code drain}. */
  public static ClusterRouter single(ClusterDrain drain) {
    return new ClusterRouter(
        List.of(new Member(drain.settings().clusterName(), drain)), null, false);
  }

  /** The first cluster's drain: it answers for the stack (rejections, instances of no cluster). */
  ClusterDrain home() {
    return members.get(0).drain();
  }

  List<Member> members() {
    return members;
  }

  List<String> names() {
    return members.stream().map(Member::name).toList();
  }

  /**
   * One instance of the event: drained by the member whose cluster has the instance's node, or
   * NOT_IN_CLUSTER (reported by the first member) when none has. Events that need no node
   * (unactionable state, no configured action) go to the first member without any lookup.
   */
  DrainOutcome dispatch(
      FleetEvent.InstanceEvent event, String instanceId, Instant received, Instant hardStop) {
    ClusterDrain home = home();
    if (!routes
        || (event instanceof FleetEvent.InstanceStateChange change && !change.actionable())
        || home.settings().actions().getOrDefault(DrainKind.of(event), Set.of()).isEmpty()) {
      return home.drainInstance(event, instanceId, received, hardStop);
    }
    DrainKind kind = DrainKind.of(event);
    // only events without a deadline trust a recent "in no cluster": a warning always looks again
    boolean trustNegative = kind == DrainKind.STATE_CHANGE || kind == DrainKind.REBALANCE;
    var route = route(instanceId, trustNegative);
    if (route.member().isPresent()) {
      return route.member().get().drain().drainInstance(event, instanceId, received, hardStop);
    }
    var outcome =
        DrainOutcomes.inNoCluster(
            event,
            kind,
            instanceId,
            String.join(",", names()),
            "no node of clusters "
                + names()
                + " has providerID .../"
                + instanceId
                + (route.fromNegativeCache()
                    ? " (found in none less than "
                        + foreign.ttl().toSeconds()
                        + "s ago; not looked up again)"
                    : " (another cluster's instance, or its node is already gone)"),
            received);
    home.report(outcome);
    return outcome;
  }

  /**
   * A completable lifecycle action: drained by the member whose cluster has the instance's node,
   * else by the first member (which finds none and lets the action go on). A lifecycle action
   * always looks again: a launching instance's node appears any moment.
   */
  List<DrainOutcome> dispatchLifecycle(
      FleetEvent.LifecycleAction action, Instant received, Instant hardStop) {
    ClusterDrain target = home();
    if (routes) {
      var route = route(action.instanceId(), false);
      if (route.member().isPresent()) {
        target = route.member().get().drain();
      }
    }
    return target.drainLifecycle(action, received, hardStop);
  }

  /**
   * The cluster of {@code instanceId}. {@code trustNegative} lets a recent "in no cluster" answer
   * stand (events without a deadline); otherwise every cluster is asked again. Throws {@link
   * DrainClusterPort.ClusterUnavailableException} when no reachable cluster has the node and one
   * could not be asked (the event is retried rather than called foreign).
   */
  Route route(String instanceId, boolean trustNegative) {
    for (Member m : members) {
      if (m.port().knownNode(instanceId).isPresent()) {
        return new Route(Optional.of(m), false);
      }
    }
    if (trustNegative && foreign.contains(instanceId)) {
      return new Route(Optional.empty(), true);
    }
    var found = lookupEverywhere(instanceId);
    if (found.isPresent()) {
      foreign.remove(instanceId);
    } else {
      foreign.add(instanceId);
    }
    return new Route(found, false);
  }

  private volatile InstanceLookupPort directory = InstanceLookupPort.NONE;

  /**
   * Every cluster finds an instance's node through {@code directory} (EC2 DescribeInstances);
   * routing asks first the clusters the instance's tags name (then every cluster).
   */
  void useInstanceDirectory(InstanceLookupPort directory) {
    this.directory = directory;
    for (Member m : members) {
      m.port().useInstanceDirectory(directory);
    }
  }

  private Optional<Member> lookupEverywhere(String instanceId) {
    if (members.size() > 1) {
      Optional<InstanceLookupPort.Instance> instance;
      try {
        instance = directory.describe(instanceId);
      } catch (RuntimeException failed) {
        instance = Optional.empty();
      }
      for (String name : InstanceLookupPort.tagged(instance, names())) {
        Member m = members.stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
        try {
          if (m.port().findNodeByInstanceId(instanceId).isPresent()) {
            return Optional.of(m);
          }
        } catch (RuntimeException unreachable) {
          // asked again below with the others, where an unreachable cluster is reported
        }
      }
    }
    if (members.size() == 1) {
      Member only = members.get(0);
      return only.port().findNodeByInstanceId(instanceId).map(n -> only);
    }
    // answers in completion order: the cluster that has the node decides at once, without waiting
    // for the others' listings (which go on, shared with concurrent lookups, and warm their caches)
    var pool = Executors.newVirtualThreadPerTaskExecutor();
    try {
      var done = new ExecutorCompletionService<Optional<Member>>(pool);
      for (Member m : members) {
        done.submit(() -> m.port().findNodeByInstanceId(instanceId).map(n -> m));
      }
      RuntimeException unreachable = null;
      for (int i = 0; i < members.size(); i++) {
        try {
          var found = done.take().get();
          if (found.isPresent()) {
            return found;
          }
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof RuntimeException re)) {
            throw new IllegalStateException(e.getCause());
          }
          if (unreachable == null) {
            unreachable = re;
          } else {
            unreachable.addSuppressed(re);
          }
        }
      }
      if (unreachable != null) {
        throw unreachable;
      }
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while routing " + instanceId, e);
    } finally {
      // not close(): that would wait for the slower clusters' lookups
      pool.shutdown();
    }
  }
}

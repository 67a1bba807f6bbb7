package io.gpufleet.drain;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Executors;

/**
 * Routes an instance to the one cluster of the stack whose node has it as providerID: first from
 * what each cluster already knows (its last node listing, no request), then the negative cache,
 * then the clusters the instance's EC2 tags name, then one lookup in every cluster at once. An
 * instance no cluster has is remembered in the negative cache, so a foreign instance's next events
 * do not list every cluster's nodes again.
 */
public final class ClusterRouter {
  /** One cluster of the stack: its name, its drain service and its Kubernetes port. */
  public record Member(String name, DrainService service, DrainClusterPort port) {}

  /** Where an instance goes: {@code member} empty = no listed cluster has its node. */
  record Route(Optional<Member> member, boolean fromNegativeCache) {}

  private final List<Member> members;
  private final NegativeCache foreign;

  public ClusterRouter(List<Member> members, NegativeCache foreign) {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("at least one cluster");
    }
    this.members = List.copyOf(members);
    this.foreign = foreign;
  }

  List<Member> members() {
    return members;
  }

  List<String> names() {
    return members.stream().map(Member::name).toList();
  }

  NegativeCache negativeCache() {
    return foreign;
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

  /** EC2's answer picks the clusters the instance's tags name to ask first (then every cluster). */
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

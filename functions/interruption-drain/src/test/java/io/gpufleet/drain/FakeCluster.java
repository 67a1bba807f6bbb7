package io.gpufleet.drain;

import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.NodeChange;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A behavioural {@link DrainClusterPort}: nodes and their pods, scripted eviction answers per pod
 * ("429 twice then 201", "503 forever"), and an ordered record of every call with its arguments and
 * the (fake) time it was made. It fails by default: evicting a pod with no scripted answer, listing
 * an unknown node, patching an unknown node or asking for budgets nobody gave throws an {@link
 * AssertionError} naming the call. Thread-safe (the drainer evicts from many virtual threads).
 *
 * <p>With fake time a retrying thread can run through its whole backoff before another virtual
 * thread of the same wave has even started. {@link #answeredTogether} models the wave going out
 * concurrently: no pod of a group gets past its first answer until every pod of the group has had
 * one (a latch, with a timeout that fails the test if the evictions are not issued in parallel).
 */
final class FakeCluster implements DrainClusterPort {
  static final int FOREVER = -1;

  /** One call the code under test made, in order. */
  sealed interface Call {
    Instant at();
  }

  record FindNode(Instant at, String instanceId) implements Call {}

  record GetNode(Instant at, String name) implements Call {}

  record PatchNode(Instant at, String node, String resourceVersion, NodeChange change)
      implements Call {}

  record PodsOnNode(Instant at, String node) implements Call {}

  record Evict(Instant at, String pod, String uid, long gracePeriodSeconds, EvictionResult answer)
      implements Call {}

  record ForceDelete(Instant at, String pod, String uid) implements Call {}

  record BudgetsFor(Instant at, List<String> pods) implements Call {}

  record NodeEvent(Instant at, String node, boolean warning, String reason, String message)
      implements Call {}

  /**
   * The answers one pod's evictions get, in order; a step given {@link #FOREVER} never runs out.
   */
  final class EvictionScript {
    private final List<EvictionResult> answers = new ArrayList<>();
    private final List<int[]> remaining = new ArrayList<>();

    EvictionScript answer(EvictionResult answer, int times) {
      synchronized (FakeCluster.this) {
        answers.add(answer);
        remaining.add(new int[] {times});
      }
      return this;
    }

    EvictionScript answer(EvictionResult answer) {
      return answer(answer, 1);
    }

    EvictionScript forever(EvictionResult answer) {
      return answer(answer, FOREVER);
    }

    private EvictionResult next(String pod) {
      for (int i = 0; i < answers.size(); i++) {
        int[] left = remaining.get(i);
        if (left[0] != 0) {
          if (left[0] > 0) {
            left[0]--;
          }
          return answers.get(i);
        }
      }
      throw new AssertionError("FakeCluster: no eviction answer left for " + pod);
    }
  }

  private final Clock clock;
  private final List<Call> calls = new ArrayList<>();
  private final Map<String, NodeInfo> nodes = new LinkedHashMap<>();
  private final Map<String, List<PodInfo>> podsByNode = new LinkedHashMap<>();
  private final Map<String, EvictionScript> scripts = new HashMap<>();
  private final Set<String> lingering = new HashSet<>();
  private final Map<String, CountDownLatch> firstAnswerGroup = new HashMap<>();
  private Map<String, List<BudgetInfo>> budgets;
  private int resourceVersion = 100;

  FakeCluster(Clock clock) {
    this.clock = clock;
  }

  // ---- answers ----

  static EvictionResult evicted() {
    return new EvictionResult.Evicted();
  }

  static EvictionResult tooManyRequests() {
    return new EvictionResult.Blocked("Cannot evict pod as it would violate the pod's budget");
  }

  static EvictionResult notFound() {
    return new EvictionResult.Gone();
  }

  static EvictionResult serviceUnavailable() {
    return new EvictionResult.Failed(
        503, "the server is currently unable to handle the request", true);
  }

  static EvictionResult forbidden() {
    return new EvictionResult.Failed(403, "pods \"x\" is forbidden", false);
  }

  static EvictionResult multiplePdbs() {
    return new EvictionResult.MultiplePdb(
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not"
            + " support.");
  }

  // ---- givens ----

  synchronized FakeCluster givenNode(NodeInfo node, PodInfo... pods) {
    nodes.put(node.name(), node);
    podsByNode.put(node.name(), new ArrayList<>(List.of(pods)));
    return this;
  }

  /** The script for {@code podKey}'s evictions (namespace/name); build it with answer/forever. */
  synchronized EvictionScript onEvict(String podKey) {
    return scripts.computeIfAbsent(podKey, k -> new EvictionScript());
  }

  /** After an accepted eviction the pod stays listed (terminating) instead of disappearing. */
  synchronized FakeCluster lingerAfterEviction(String podKey) {
    lingering.add(podKey);
    return this;
  }

  /** The first answers to these pods' evictions are all given before any of them goes on. */
  synchronized FakeCluster answeredTogether(List<String> podKeys) {
    var latch = new CountDownLatch(podKeys.size());
    podKeys.forEach(k -> firstAnswerGroup.put(k, latch));
    return this;
  }

  synchronized FakeCluster givenBudgets(Map<String, List<BudgetInfo>> budgetsByPod) {
    this.budgets = new HashMap<>(budgetsByPod);
    return this;
  }

  synchronized void reset() {
    calls.clear();
    nodes.clear();
    podsByNode.clear();
    scripts.clear();
    lingering.clear();
    firstAnswerGroup.clear();
    budgets = null;
  }

  // ---- inspection ----

  synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  synchronized <T extends Call> List<T> calls(Class<T> type) {
    return calls.stream().filter(type::isInstance).map(type::cast).toList();
  }

  synchronized List<Evict> evictionsOf(String podKey) {
    return calls(Evict.class).stream().filter(e -> e.pod().equals(podKey)).toList();
  }

  synchronized List<String> podsLeftOn(String node) {
    return podsByNode.getOrDefault(node, List.of()).stream().map(PodInfo::key).toList();
  }

  synchronized NodeInfo node(String name) {
    return nodes.get(name);
  }

  // ---- the port ----

  @Override
  public synchronized Optional<NodeInfo> findNodeByInstanceId(String instanceId) {
    calls.add(new FindNode(clock.instant(), instanceId));
    return nodes.values().stream()
        .filter(n -> n.providerId() != null && n.providerId().endsWith("/" + instanceId))
        .findFirst();
  }

  @Override
  public synchronized List<NodeInfo> nodesInCapacityReservation(String reservationId) {
    return nodes.values().stream()
        .filter(n -> reservationId.equals(n.labels().get(CAPACITY_RESERVATION_LABEL)))
        .toList();
  }

  @Override
  public synchronized Optional<NodeInfo> getNode(String name) {
    calls.add(new GetNode(clock.instant(), name));
    return Optional.ofNullable(nodes.get(name));
  }

  /** Nodes of the fake are Ready while they exist. */
  @Override
  public synchronized boolean nodeReady(String name) {
    return nodes.containsKey(name);
  }

  @Override
  public synchronized boolean patchNode(NodeInfo node, NodeChange change) {
    calls.add(new PatchNode(clock.instant(), node.name(), node.resourceVersion(), change));
    NodeInfo current = nodes.get(node.name());
    if (current == null) {
      throw new AssertionError("FakeCluster: patch of unknown node " + node.name());
    }
    if (change.guarded() && !current.resourceVersion().equals(node.resourceVersion())) {
      return false;
    }
    var taints = new ArrayList<>(current.taints());
    if (change.addTaint() != null) {
      taints.add(change.addTaint());
    }
    var labels = new HashMap<>(current.labels());
    labels.putAll(change.labels());
    var annotations = new HashMap<>(current.annotations());
    annotations.putAll(change.annotations());
    nodes.put(
        node.name(),
        new NodeInfo(
            current.name(),
            current.providerId(),
            String.valueOf(++resourceVersion),
            current.unschedulable() || change.cordon(),
            List.copyOf(taints),
            Map.copyOf(labels),
            Map.copyOf(annotations)));
    return true;
  }

  @Override
  public synchronized List<PodInfo> podsOnNode(String nodeName) {
    calls.add(new PodsOnNode(clock.instant(), nodeName));
    var pods = podsByNode.get(nodeName);
    if (pods == null) {
      throw new AssertionError("FakeCluster: pods of unknown node " + nodeName);
    }
    return List.copyOf(pods);
  }

  @Override
  public EvictionResult evict(PodInfo pod, long gracePeriodSeconds) {
    EvictionResult answer;
    CountDownLatch group;
    synchronized (this) {
      EvictionScript script = scripts.get(pod.key());
      if (script == null) {
        throw new AssertionError("FakeCluster: no eviction answers scripted for " + pod.key());
      }
      answer = script.next(pod.key());
      calls.add(new Evict(clock.instant(), pod.key(), pod.uid(), gracePeriodSeconds, answer));
      switch (answer) {
        case EvictionResult.Evicted e -> {
          if (lingering.contains(pod.key())) {
            replace(pod.uid(), TestPods.terminating(pod));
          } else {
            remove(pod.uid());
          }
        }
        case EvictionResult.Gone g -> remove(pod.uid());
        default -> {}
      }
      group = firstAnswerGroup.remove(pod.key());
    }
    if (group != null) {
      group.countDown();
      try {
        if (!group.await(10, TimeUnit.SECONDS)) {
          throw new AssertionError(
              "FakeCluster: the evictions grouped with "
                  + pod.key()
                  + " were not issued together (still waiting for "
                  + group.getCount()
                  + ")");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
    return answer;
  }

  @Override
  public synchronized boolean forceDelete(PodInfo pod) {
    calls.add(new ForceDelete(clock.instant(), pod.key(), pod.uid()));
    return remove(pod.uid());
  }

  @Override
  public synchronized Map<String, List<BudgetInfo>> budgetsFor(List<PodInfo> pods) {
    calls.add(new BudgetsFor(clock.instant(), pods.stream().map(PodInfo::key).toList()));
    if (budgets == null) {
      throw new AssertionError("FakeCluster: budgetsFor called but no budgets were given");
    }
    var out = new LinkedHashMap<String, List<BudgetInfo>>();
    for (PodInfo p : pods) {
      var b = budgets.get(p.key());
      if (b != null && !b.isEmpty()) {
        out.put(p.key(), b);
      }
    }
    return out;
  }

  @Override
  public synchronized void recordNodeEvent(
      String nodeName, boolean warning, String reason, String message) {
    calls.add(new NodeEvent(clock.instant(), nodeName, warning, reason, message));
  }

  private boolean remove(String uid) {
    boolean removed = false;
    for (var pods : podsByNode.values()) {
      removed |= pods.removeIf(p -> p.uid().equals(uid));
    }
    return removed;
  }

  private void replace(String uid, PodInfo replacement) {
    for (var pods : podsByNode.values()) {
      pods.replaceAll(p -> p.uid().equals(uid) ? replacement : p);
    }
  }
}

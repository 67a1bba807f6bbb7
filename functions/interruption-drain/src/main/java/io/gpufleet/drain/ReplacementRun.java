package io.gpufleet.drain;

import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.EarlyReplacement.Action;
import io.gpufleet.drain.EarlyReplacement.Result;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.PodInfo;
import io.gpufleet.drain.model.ReplacementReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.BooleanSupplier;

/**
 * Replacement before removal during one instance's drain. The raise ({@link EarlyReplacement}) runs
 * on its own virtual thread from the moment the node is claimed, so a Spot warning's evictions
 * never wait for Auto Scaling. On a rebalance recommendation (no deadline yet) the drain waits for
 * the raise and, when the group was raised, evicts the node's inference replicas only once the
 * group's serving capacity is back: as many of its other instances' nodes Ready as the group had
 * before the raise (the replacement among them), or when another event (a Spot warning) claims the
 * node, or at the latest moment their eviction plus grace still meets the deadline. After the drain
 * the old instance is terminated with ShouldDecrementDesiredCapacity, so the group ends at its
 * original size.
 */
final class ReplacementRun {
  static final Duration POLL = Duration.ofSeconds(2);

  /** Room left after the held pods' grace before the deadline (their eviction's own calls). */
  static final Duration HOLD_SLACK = Duration.ofSeconds(5);

  static final String TAKEN_OVER = "another event claimed the node (e.g. its Spot warning)";

  /**
   * The longest a rebalance holds inference replicas for their replacement, from the
   * recommendation's time, over follow-up invocations; then they are evicted at the latest safe
   * moment of the invocation running.
   */
  static final Duration MAX_HOLD = Duration.ofMinutes(15);

  /** How long after an invocation ends its follow-up is delivered. */
  static final Duration CONTINUE_AFTER = Duration.ofSeconds(10);

  static final String ROUND = "#hold-";

  /** Owners whose pods are serving replicas (a Job's or a bare pod's are not). */
  static final Set<String> REPLICA_OWNERS = Set.of("ReplicaSet", "StatefulSet");

  private final EarlyReplacement replacement;
  private final ReplacementPort groups;
  private final DrainClusterPort cluster;
  private final Clock clock;
  private final Sleeper sleeper;
  private final String instanceId;
  private final DrainKind kind;
  private final FutureTask<Optional<Result>> raising;
  private volatile Instant raisedAt;
  private Instant readyAt;
  private List<String> held;
  private String heldUntil;
  private boolean continued;

  private ReplacementRun(
      EarlyReplacement replacement,
      ReplacementPort groups,
      DrainClusterPort cluster,
      Clock clock,
      Sleeper sleeper,
      String instanceId,
      DrainKind kind) {
    this.replacement = replacement;
    this.groups = groups;
    this.cluster = cluster;
    this.clock = clock;
    this.sleeper = sleeper;
    this.instanceId = instanceId;
    this.kind = kind;
    this.raising =
        new FutureTask<>(
            () -> {
              var r = replacement.raise(instanceId, kind);
              raisedAt = clock.instant();
              return r;
            });
  }

  /** True when {@code kind} may raise a group ({@code groups} null: replacement is off). */
  static boolean applies(ReplacementPort groups, DrainKind kind) {
    return groups != null && EarlyReplacement.KINDS.contains(kind);
  }

  /**
   * Starts the raise for the instance's group, or null when {@link #applies} says no: a drain with
   * no replacement run behaves as before.
   */
  static ReplacementRun start(
      ReplacementPort groups,
      DrainClusterPort cluster,
      Clock clock,
      Sleeper sleeper,
      String instanceId,
      DrainKind kind) {
    if (!applies(groups, kind)) {
      return null;
    }
    var run =
        new ReplacementRun(
            new EarlyReplacement(groups), groups, cluster, clock, sleeper, instanceId, kind);
    Thread.ofVirtual().name("replace-" + instanceId).start(run.raising);
    return run;
  }

  /**
   * The longest the drain waits for the raise's answer (each Auto Scaling call has its own 30 s
   * limit; a raise makes up to four): the drain's report must not wait out the function's time.
   */
  static final Duration RAISE_WAIT = Duration.ofSeconds(30);

  /** What the raise did (waits for it, at most {@link #RAISE_WAIT}). */
  Optional<Result> raise() throws InterruptedException {
    try {
      return raising.get(RAISE_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return Optional.of(
          Result.failed(
              "Auto Scaling did not answer within "
                  + RAISE_WAIT.toSeconds()
                  + "s: the raise may still complete (see the group's "
                  + EarlyReplacement.RAISED_FOR
                  + "* tags); the old instance is not terminated here"));
    } catch (ExecutionException e) {
      return Optional.of(Result.failed("raise failed, group left as it was: " + e.getCause()));
    }
  }

  /** True when the group is raised for this instance (waits for the raise). */
  boolean raised() throws InterruptedException {
    return raise().map(Result::raised).orElse(false);
  }

  int heldCount() {
    return held == null ? 0 : held.size();
  }

  /** True when the replicas were left for a follow-up invocation. */
  boolean continued() {
    return continued;
  }

  /**
   * True when a rebalance's hold may go on in a follow-up invocation: there is a queue to deliver
   * it, and the recommendation is younger than {@link #MAX_HOLD}.
   */
  static boolean mayContinue(
      ContinuationPort continuations, FleetEvent.InstanceEvent event, Instant now) {
    return continuations.available()
        && DrainKind.of(event) == DrainKind.REBALANCE
        && event.meta().time() != null
        && now.plus(MAX_HOLD.dividedBy(10)).isBefore(event.meta().time().plus(MAX_HOLD));
  }

  /** The round of a rebalance's hold: 0 for the recommendation, then 1, 2, ... */
  static int round(String eventId) {
    int at = eventId.lastIndexOf(ROUND);
    if (at < 0) {
      return 0;
    }
    try {
      return Integer.parseInt(eventId.substring(at + ROUND.length()));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * The follow-up of a rebalance's hold: the recommendation again (its own time, so {@link
   * #MAX_HOLD} counts from the first), with the next round's id. Handled like the first, it finds
   * the group already raised and the node's other pods gone, and holds the replicas again.
   */
  static String continuation(FleetEvent.InstanceEvent event, String instanceId) {
    String id = event.meta().id();
    int at = id.lastIndexOf(ROUND);
    String original = at < 0 ? id : id.substring(0, at);
    var root = io.gpufleet.core.json.Json.MAPPER.createObjectNode();
    root.put("version", "0");
    root.put("id", original + ROUND + (round(id) + 1));
    root.put("detail-type", io.gpufleet.core.event.EventDecoder.REBALANCE);
    root.put("source", "aws.ec2");
    root.put("account", event.meta().account());
    root.put("time", event.meta().time().toString());
    root.put("region", event.meta().region());
    root.putArray("resources");
    root.putObject("detail").put("instance-id", instanceId);
    return io.gpufleet.core.json.Json.write(root);
  }

  /** A serving replica: controlled by a ReplicaSet or StatefulSet, and not a checkpointing job. */
  static boolean isInferenceReplica(PodInfo pod) {
    return pod.ownerKind() != null
        && REPLICA_OWNERS.contains(pod.ownerKind())
        && (pod.annotations() == null || !pod.annotations().containsKey(CheckpointWait.CHECKPOINT));
  }

  /**
   * The rebalance drain: every pod but the inference replicas at once, then the replicas once the
   * replacement is Ready ({@link #awaitReplacement}); a group not raised drains as usual. When the
   * wait ends at its latest moment and {@code continueLater} has sent a follow-up (true), the
   * replicas stay for it; when it could not (false), they are evicted now.
   */
  Drainer.Result drainReplacingFirst(
      Drainer drainer,
      String nodeName,
      DrainPolicy.Selection selection,
      DrainPolicy.Plan plan,
      BooleanSupplier takenOver,
      BooleanSupplier continueLater)
      throws InterruptedException {
    var replicas =
        selection.evictable().stream().filter(ReplacementRun::isInferenceReplica).toList();
    if (replicas.isEmpty() || !raised()) {
      return drainer.run(nodeName, selection, plan);
    }
    var rest = selection.without(replicas);
    var first = drainer.run(nodeName, rest, plan);
    held = replicas.stream().map(PodInfo::key).toList();
    long grace =
        replicas.stream()
            .mapToLong(
                p ->
                    p.terminationGracePeriodSeconds() == null
                        ? DrainPolicy.DEFAULT_GRACE_SECONDS
                        : p.terminationGracePeriodSeconds())
            .max()
            .orElse(0);
    Instant holdUntil = plan.deadline().minusSeconds(grace).minus(HOLD_SLACK);
    heldUntil = awaitReplacement(holdUntil, takenOver);
    if (readyAt == null && !heldUntil.startsWith(TAKEN_OVER) && continueLater.getAsBoolean()) {
      // the replacement is still booting: the replicas stay, a follow-up invocation looks again
      continued = true;
      heldUntil =
          "continued in a follow-up invocation (replacement not Ready by " + holdUntil + ")";
      return first;
    }
    var second = drainer.run(nodeName, selection.only(replicas), plan);
    return Drainer.Result.merged(first, second);
  }

  /**
   * Waits until the group's serving capacity is back, another event claims the node, or {@code
   * until}; says which ended the wait.
   */
  String awaitReplacement(Instant until, BooleanSupplier takenOver) throws InterruptedException {
    String name = raise().map(Result::group).orElse(null);
    Map<String, String> nodes = new HashMap<>();
    Set<String> ready = new HashSet<>();
    while (true) {
      if (takenOver.getAsBoolean()) {
        return TAKEN_OVER;
      }
      try {
        var g = groups.group(name);
        if (g.isPresent() && capacityBack(g.get(), nodes, ready)) {
          readyAt = clock.instant();
          return "replacement Ready";
        }
      } catch (RuntimeException e) {
        // Auto Scaling or the API server did not answer this time: look again until `until`
      }
      Instant now = clock.instant();
      if (!now.isBefore(until)) {
        return "latest safe moment "
            + until
            + " reached without the replacement Ready (eviction plus grace meets the deadline)";
      }
      Duration left = Duration.between(now, until);
      sleeper.sleep(left.compareTo(POLL) < 0 ? left : POLL);
    }
  }

  /**
   * True when as many of the group's instances other than those being replaced have a Ready node as
   * the group had before the raises in progress.
   */
  boolean capacityBack(ReplacementPort.Group g, Map<String, String> nodes, Set<String> ready) {
    int before = EarlyReplacement.wanted(g) - EarlyReplacement.raisedCount(g);
    int count = 0;
    for (String id : g.instances()) {
      if (g.tags().containsKey(EarlyReplacement.RAISED_FOR + id)) {
        continue;
      }
      if (ready.contains(id)) {
        count++;
        continue;
      }
      String node = nodes.get(id);
      if (node == null) {
        node = cluster.findNodeByInstanceId(id).map(n -> n.name()).orElse(null);
        if (node != null) {
          nodes.put(id, node);
        }
      }
      if (node != null && cluster.nodeReady(node)) {
        ready.add(id);
        count++;
      }
    }
    return count >= before;
  }

  /**
   * After the drain: a raised group's old instance is terminated with
   * ShouldDecrementDesiredCapacity when its pods are gone, or when its kind has a deadline (EC2
   * takes the instance then anyway); a rebalance drain that left pods keeps the instance and the
   * raise, for the warning that follows.
   */
  ReplacementReport finish(boolean drained) throws InterruptedException {
    if (continued) {
      var r = raise().orElseThrow();
      return new ReplacementReport(
          r.group(),
          r.action().name(),
          r.desiredBefore(),
          r.desiredAfter(),
          r.action() == Action.RAISED ? raisedAt : null,
          null,
          held,
          heldUntil,
          null,
          "the old instance stays until its replicas have left");
    }
    var raised = raise();
    if (raised.isEmpty()) {
      return null;
    }
    var r = raised.get();
    if (r.action() == Action.NO_GROUP || r.action() == Action.NOT_OPTED_IN) {
      return null; // replacement is not used for this instance: nothing to say on every outcome
    }
    Instant terminatedAt = null;
    String note = r.note();
    Integer after = r.desiredAfter();
    if (r.raised()) {
      if (drained || kind != DrainKind.REBALANCE) {
        var done = replacement.finish(instanceId);
        if (done.isPresent() && done.get().action() == Action.TERMINATED) {
          terminatedAt = clock.instant();
          after = done.get().desiredAfter();
          note = done.get().note();
        } else {
          note =
              done.map(Result::note)
                  .orElse(
                      "old instance already left the group (an earlier delivery terminated it)");
        }
      } else {
        note =
            "pods did not all leave: the old instance is kept and the group stays raised until the"
                + " next warning for it drains and terminates it";
      }
    }
    return new ReplacementReport(
        r.group(),
        r.action().name(),
        r.desiredBefore(),
        after,
        r.action() == Action.RAISED ? raisedAt : null,
        readyAt,
        held,
        heldUntil,
        terminatedAt,
        note);
  }
}

package io.gpufleet.drain;

import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Orchestrates one event: find each named node by providerID, claim + taint + cordon it in one
 * patch, drain it, and report. Throws only for transient cluster failures (so Lambda retries and
 * then dead-letters); everything else ends in an outcome.
 */
public final class DrainService {
  private static final Duration CLAIM_GRACE = Duration.ofSeconds(30);
  private static final int CLAIM_ATTEMPTS = 5;

  private final DrainSettings settings;
  private final DrainPolicy policy;
  private final DrainClusterPort cluster;
  private final Drainer drainer;
  private final OutcomeReporter<DrainOutcome> reporter;
  private final Clock clock;
  private final Sleeper sleeper;
  private final LifecycleService lifecycle;
  private final ContinuationPort continuations;

  /** Instances of this process being looked up and cordoned right now (see awaitClaims). */
  private final java.util.concurrent.atomic.AtomicInteger claiming =
      new java.util.concurrent.atomic.AtomicInteger();

  static final Duration CLAIMS_FIRST_MAX = Duration.ofSeconds(2);

  public DrainService(
      DrainSettings settings,
      DrainClusterPort cluster,
      OutcomeReporter<DrainOutcome> reporter,
      Clock clock,
      Sleeper sleeper) {
    this(settings, cluster, reporter, clock, sleeper, null, ContinuationPort.NONE);
  }

  /**
   * With Auto Scaling lifecycle hooks: {@code hooks} heartbeats and completes them, {@code
   * continuations} resumes a drain that outlives one invocation.
   */
  public DrainService(
      DrainSettings settings,
      DrainClusterPort cluster,
      OutcomeReporter<DrainOutcome> reporter,
      Clock clock,
      Sleeper sleeper,
      LifecyclePort hooks,
      ContinuationPort continuations) {
    this.lifecycle =
        hooks == null
            ? null
            : new LifecycleService(this, settings, cluster, hooks, continuations, clock, sleeper);
    this.settings = settings;
    this.continuations = continuations;
    this.policy = new DrainPolicy(settings);
    this.cluster = cluster;
    this.drainer = new Drainer(cluster, clock, sleeper, settings);
    this.reporter = reporter;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  public DrainSettings settings() {
    return settings;
  }

  /** Null: this service serves one cluster. Else the stack's clusters, this one among them. */
  private volatile ClusterRouter router;

  /**
   * Makes this service the entry of a stack serving several clusters: each instance's event goes to
   * the member whose cluster has the instance's node; {@code router}'s members are router-less
   * services (this one may be among them).
   */
  public DrainService routeAcross(ClusterRouter clusters) {
    for (var m : clusters.members()) {
      if (m.service() != this && m.service().router != null) {
        throw new IllegalArgumentException("a member of a routed stack must not route itself");
      }
    }
    this.router = clusters;
    return this;
  }

  /** The names of the clusters this service drains (one unless routed). */
  public List<String> clusterNames() {
    var r = router;
    return r == null ? List.of(settings.clusterName()) : r.names();
  }

  /** Handles a decoded payload; {@code hardStop} is when the function must have answered. */
  public List<DrainOutcome> handle(DecodeResult decoded, Instant hardStop) {
    Instant received = clock.instant();
    List<DrainOutcome> outcomes =
        switch (decoded) {
          case DecodeResult.Rejected r ->
              List.of(
                  DrainOutcome.simple(
                          r.eventId(),
                          null,
                          null,
                          settings.clusterName(),
                          null,
                          Status.REJECTED,
                          r.reason(),
                          received)
                      .withRegion(r.region()));
          case DecodeResult.Decoded d -> handle(d.event(), hardStop);
        };
    if (decoded instanceof DecodeResult.Rejected) {
      outcomes.forEach(reporter::report);
    }
    return outcomes;
  }

  public List<DrainOutcome> handle(FleetEvent event, Instant hardStop) {
    Instant received = clock.instant();
    if (event instanceof FleetEvent.CapacityBlockExpiring block && block.instanceIds().isEmpty()) {
      return handleCapacityBlock(block, received, hardStop);
    }
    if (!(event instanceof FleetEvent.InstanceEvent ie)) {
      var outcome =
          DrainOutcome.simple(
                  event.meta().id(),
                  null,
                  null,
                  settings.clusterName(),
                  null,
                  Status.NO_ACTION,
                  event instanceof FleetEvent.Unsupported u ? u.why() : "not an instance event",
                  received)
              .withRegion(event.meta().region());
      reporter.report(outcome);
      return List.of(outcome);
    }
    // a lifecycle action without its group or hook cannot be completed: drained like a warning
    if (ie instanceof FleetEvent.LifecycleAction action && action.completable()) {
      var r = router;
      if (r != null) {
        // a lifecycle action always looks again: a launching instance's node appears any moment
        var route = r.route(action.instanceId(), false);
        if (route.member().isPresent() && route.member().get().service() != this) {
          return route.member().get().service().handleLifecycle(action, received, hardStop);
        }
      }
      return handleLifecycle(action, received, hardStop);
    }
    List<String> ids = ie.instanceIds();
    if (ids.size() == 1) {
      return List.of(dispatch(ie, ids.get(0), received, hardStop));
    }
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<DrainOutcome>>();
      for (String id : ids) {
        futures.add(pool.submit(() -> dispatch(ie, id, received, hardStop)));
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

  private List<DrainOutcome> handleLifecycle(
      FleetEvent.LifecycleAction action, Instant received, Instant hardStop) {
    DrainOutcome outcome =
        lifecycle == null
            ? simple(
                action,
                action.instanceId(),
                null,
                Status.NO_ACTION,
                "no Auto Scaling client configured: lifecycle hooks are not handled here",
                received)
            : lifecycle.handle(action, received, hardStop);
    outcome = outcome.withRegion(action.meta().region());
    reporter.report(outcome);
    return List.of(outcome);
  }

  /**
   * One instance of the event: here when this service serves one cluster, else on the member whose
   * cluster has the instance's node, or NOT_IN_CLUSTER when none has. Events that need no node
   * (unactionable state, no configured action) are answered here without any lookup.
   */
  private DrainOutcome dispatch(
      FleetEvent.InstanceEvent event, String instanceId, Instant received, Instant hardStop) {
    var r = router;
    if (r == null
        || (event instanceof FleetEvent.InstanceStateChange change && !change.actionable())
        || settings.actions().getOrDefault(DrainKind.of(event), java.util.Set.of()).isEmpty()) {
      return handleInstance(event, instanceId, received, hardStop);
    }
    DrainKind kind = DrainKind.of(event);
    // only events without a deadline trust a recent "in no cluster": a warning always looks again
    boolean trustNegative = kind == DrainKind.STATE_CHANGE || kind == DrainKind.REBALANCE;
    var route = r.route(instanceId, trustNegative);
    if (route.member().isPresent()) {
      return route.member().get().service().handleInstance(event, instanceId, received, hardStop);
    }
    var outcome =
        DrainOutcome.simple(
                event.meta().id(),
                kind.label(),
                instanceId,
                String.join(",", r.names()),
                null,
                Status.NOT_IN_CLUSTER,
                "no node of clusters "
                    + r.names()
                    + " has providerID .../"
                    + instanceId
                    + (route.fromNegativeCache()
                        ? " (found in none less than "
                            + r.negativeCache().ttl().toSeconds()
                            + "s ago; not looked up again)"
                        : " (another cluster's instance, or its node is already gone)"),
                received)
            .withRegion(event.meta().region());
    reporter.report(outcome);
    return outcome;
  }

  /** Where the instances of a Capacity Block are found besides Karpenter's label (null: none). */
  private volatile CapacityReservationPort reservations;

  /** Finds a Capacity Block's instances through EC2 too (nodes without Karpenter's label). */
  /**
   * Finds an instance's node from what {@code directory} (EC2 DescribeInstances) says of it: the
   * node named by its private DNS name, in the cluster its tags name, checked by providerID; the
   * node listing stays the fallback.
   */
  public DrainService lookUpInstancesWith(InstanceLookupPort directory) {
    cluster.useInstanceDirectory(directory);
    var r = router;
    if (r != null) {
      r.useInstanceDirectory(directory);
    }
    return this;
  }

  /** The Auto Scaling groups replacement before removal works on (null: it is off). */
  private volatile ReplacementPort replacement;

  /**
   * Replacement before removal ({@link EarlyReplacement}) for the instances of Auto Scaling groups
   * that opted in with the tag {@link EarlyReplacement#OPT_IN}, on every cluster of the stack.
   */
  public DrainService replaceEarlyWith(ReplacementPort groups) {
    this.replacement = groups;
    var r = router;
    if (r != null) {
      for (var m : r.members()) {
        if (m.service() != this) {
          m.service().replaceEarlyWith(groups);
        }
      }
    }
    return this;
  }

  public DrainService findReservationInstancesWith(CapacityReservationPort port) {
    this.reservations = port;
    return this;
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
    var ids = new java.util.LinkedHashSet<String>();
    var r = router;
    var ports =
        r == null
            ? List.of(cluster)
            : r.members().stream().map(ClusterRouter.Member::port).toList();
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
      var outcome =
          DrainOutcome.simple(
                  block.meta().id(),
                  DrainKind.CAPACITY_BLOCK_EXPIRING.label(),
                  null,
                  String.join(",", clusterNames()),
                  null,
                  Status.NOT_IN_CLUSTER,
                  "no node of cluster"
                      + (clusterNames().size() > 1
                          ? "s " + clusterNames()
                          : " " + settings.clusterName())
                      + " runs in capacity block "
                      + block.capacityReservationId()
                      + " (label "
                      + DrainClusterPort.CAPACITY_RESERVATION_LABEL
                      + (ec2 == null
                          ? "; EC2 not asked for the block's instances"
                          : "; EC2 runs no instance in it")
                      + ")",
                  received)
              .withRegion(block.meta().region());
      reporter.report(outcome);
      return List.of(outcome);
    }
    return handle(block.withInstances(List.copyOf(ids)), hardStop);
  }

  private DrainOutcome handleInstance(
      FleetEvent.InstanceEvent event, String instanceId, Instant received, Instant hardStop) {
    DrainOutcome outcome;
    try {
      outcome = drainInstance(event, instanceId, received, hardStop);
      outcome = outcome.withRegion(event.meta().region()).withCaveats(event.meta().caveats());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while draining " + instanceId, e);
    }
    reporter.report(outcome);
    return outcome;
  }

  private DrainOutcome drainInstance(
      FleetEvent.InstanceEvent event, String instanceId, Instant received, Instant hardStop)
      throws InterruptedException {
    if (event instanceof FleetEvent.InstanceStateChange change && !change.actionable()) {
      return simple(
          event,
          instanceId,
          null,
          Status.NO_ACTION,
          "instance is "
              + (change.state().isEmpty() ? "in an unnamed state" : "'" + change.state() + "'")
              + ": nothing to do (acting on "
              + new java.util.TreeSet<>(FleetEvent.InstanceStateChange.ACTIONABLE)
              + ")",
          received);
    }
    DrainPolicy.Plan plan = policy.plan(event, hardStop);
    if (plan.actions().isEmpty()) {
      return simple(
          event,
          instanceId,
          null,
          Status.NO_ACTION,
          "no actions configured for " + plan.kind(),
          received);
    }
    if (settings.options().dryRun()) {
      return dryRunOutcome(event, instanceId, plan, received, List.of());
    }
    var claim = new java.util.concurrent.atomic.AtomicBoolean(true);
    claiming.incrementAndGet();
    try {
      return claimAndDrain(event, instanceId, plan, received, claim);
    } finally {
      release(claim);
    }
  }

  private void release(java.util.concurrent.atomic.AtomicBoolean claim) {
    if (claim.compareAndSet(true, false)) {
      claiming.decrementAndGet();
    }
  }

  /**
   * Cordons go first: before evicting, wait (briefly, bounded) until every node this process is
   * claiming is cordoned, so a burst of events cordons all its nodes before the API server is busy
   * with evictions.
   */
  private void awaitClaims(Instant deadline) throws InterruptedException {
    Instant until = clock.instant().plus(CLAIMS_FIRST_MAX);
    if (deadline.isBefore(until)) {
      until = deadline;
    }
    while (claiming.get() > 0 && clock.instant().isBefore(until)) {
      sleeper.sleep(Duration.ofMillis(10));
    }
  }

  private DrainOutcome claimAndDrain(
      FleetEvent.InstanceEvent event,
      String instanceId,
      DrainPolicy.Plan plan,
      Instant received,
      java.util.concurrent.atomic.AtomicBoolean claim)
      throws InterruptedException {
    String eventId = event.meta().id();
    DrainKind kind = plan.kind();
    Optional<NodeInfo> found = cluster.findNodeByInstanceId(instanceId);
    if (found.isEmpty()) {
      return simple(
          event,
          instanceId,
          null,
          Status.NOT_IN_CLUSTER,
          "no node of cluster "
              + settings.clusterName()
              + " has providerID .../"
              + instanceId
              + (kind == DrainKind.STATE_CHANGE
                  ? " (another cluster's instance, or its node is already gone)"
                  : ""),
          received);
    }
    NodeInfo node = found.get();
    String excluded = policy.exclusion(node);
    if (excluded != null) {
      return simple(event, instanceId, node.name(), Status.EXCLUDED, excluded, received);
    }
    boolean drain = plan.actions().contains(Action.DRAIN);
    // a rebalance that replaces its node first drains it after the raise: held until then
    var groups = replacement;
    boolean mayReplace =
        ReplacementRun.applies(groups, kind) && (drain || kind == DrainKind.REBALANCE);
    var claimState = drain || mayReplace ? DrainMarker.State.IN_PROGRESS : DrainMarker.State.DONE;
    Instant claimUntil = plan.deadline().plus(CLAIM_GRACE);
    DrainMarker marker;
    for (int attempt = 1; ; attempt++) {
      Optional<DrainMarker> existing = DrainMarker.read(node.annotations());
      if (existing.isPresent() && existing.get().blocks(eventId, clock.instant())) {
        boolean done =
            existing.get().recent().contains(eventId)
                || existing.get().state() == DrainMarker.State.DONE;
        return simple(
            event,
            instanceId,
            node.name(),
            Status.DUPLICATE,
            "event already " + (done ? "handled" : "being handled") + " for this node",
            received);
      }
      marker =
          existing
              .map(e -> e.next(eventId, kind.label(), claimState, claimUntil))
              .orElseGet(() -> new DrainMarker(eventId, kind.label(), claimState, claimUntil));
      if (cluster.patchNode(node, policy.claim(plan, node, marker))) {
        break;
      }
      if (attempt == CLAIM_ATTEMPTS) {
        throw new DrainClusterPort.ClusterUnavailableException(
            "node " + node.name() + " kept changing under " + CLAIM_ATTEMPTS + " claim attempts",
            null);
      }
      var reread = cluster.getNode(node.name());
      if (reread.isEmpty()) {
        return simple(
            event,
            instanceId,
            node.name(),
            Status.NODE_GONE,
            "node deleted while claiming it",
            received);
      }
      node = reread.get();
    }
    Instant cordoned = clock.instant();
    release(claim);
    var replacing =
        mayReplace ? ReplacementRun.start(groups, cluster, clock, sleeper, instanceId, kind) : null;
    boolean replaceFirst = replacing != null && kind == DrainKind.REBALANCE && replacing.raised();
    if (!drain && !replaceFirst) {
      var told = CheckpointWait.tellNode(cluster, clock, sleeper, node.name(), kind);
      if (claimState == DrainMarker.State.IN_PROGRESS) {
        patchMarker(node.name(), marker.with(DrainMarker.State.DONE));
      }
      return new DrainOutcome(
              eventId,
              kind.label(),
              instanceId,
              settings.clusterName(),
              node.name(),
              Status.CORDONED,
              "tainted/cordoned; this kind does not drain",
              plan.actions(),
              received,
              null,
              null,
              new DrainOutcome.Timings(ms(received, cordoned), null, null),
              List.of(),
              List.of(),
              List.of(),
              List.of())
          .withCheckpoints(told.reports())
          .withReplacement(replacing == null ? null : replacing.finish(false));
    }
    awaitClaims(plan.deadline());
    var selection = policy.select(cluster.podsOnNode(node.name()));
    Drainer.Result result;
    String nodeName = node.name();
    DrainMarker claimed = marker;
    try {
      result =
          replaceFirst
              ? replacing.drainReplacingFirst(
                  drainer,
                  nodeName,
                  selection,
                  plan,
                  () -> takenOver(nodeName, claimed),
                  () -> continueLater(event, instanceId))
              : drainer.run(nodeName, selection, plan);
    } catch (RuntimeException | InterruptedException e) {
      release(node.name(), marker);
      throw e;
    }
    if (!replaceFirst || !takenOver(nodeName, claimed)) {
      // a Spot warning that claimed the node during the rebalance's hold keeps its own claim
      patchMarker(node.name(), marker.with(DrainMarker.State.DONE));
    }
    var done =
        outcome(event, instanceId, node.name(), plan, selection, result, received, cordoned)
            .withCheckpoints(result.checkpoints());
    if (replacing == null) {
      return done;
    }
    if (replacing.continued()) {
      done =
          done.with(
              Status.DRAINING,
              done.message()
                  + "; "
                  + replacing.heldCount()
                  + " inference replica(s) held until the replacement is Ready: round "
                  + (ReplacementRun.round(event.meta().id()) + 1)
                  + " follows in "
                  + ReplacementRun.CONTINUE_AFTER.toSeconds()
                  + "s");
    }
    return done.withReplacement(replacing.finish(done.status() == Status.DRAINED));
  }

  /**
   * Sends the follow-up of a rebalance's hold, when it may go on ({@link
   * ReplacementRun#mayContinue}); false when it may not or could not be sent (the replicas are then
   * evicted in this invocation, nothing is left waiting for a message that never comes).
   */
  private boolean continueLater(FleetEvent.InstanceEvent event, String instanceId) {
    if (!ReplacementRun.mayContinue(continuations, event, clock.instant())) {
      return false;
    }
    try {
      continuations.schedule(
          ReplacementRun.continuation(event, instanceId), ReplacementRun.CONTINUE_AFTER);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** True when another event has claimed the node since {@code ours} (or the node is gone). */
  private boolean takenOver(String nodeName, DrainMarker ours) {
    return cluster
        .getNode(nodeName)
        .map(
            n ->
                DrainMarker.read(n.annotations())
                    .map(m -> !m.eventId().equals(ours.eventId()))
                    .orElse(false))
        .orElse(true);
  }

  /**
   * DRAIN_DRY_RUN: what this event would do to the instance's node, read only; {@code after} are
   * steps that follow the drain (e.g. completing a lifecycle action).
   */
  DrainOutcome dryRunOutcome(
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
              + settings.clusterName()
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
        var report = dryRun(instanceId);
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
    return DrainOutcome.dryRun(
        event.meta().id(),
        plan.kind().label(),
        instanceId,
        settings.clusterName(),
        nodeName,
        message,
        received,
        planned);
  }

  DrainPolicy policy() {
    return policy;
  }

  /** What draining this instance's node would do now; reads only. */
  public io.gpufleet.drain.model.DryRunReport dryRun(String instanceId) {
    var found = cluster.findNodeByInstanceId(instanceId);
    if (found.isEmpty()) {
      return new io.gpufleet.drain.model.DryRunReport(
          instanceId,
          settings.clusterName(),
          null,
          false,
          List.of(),
          List.of(),
          List.of(),
          List.of(),
          "no node of cluster " + settings.clusterName() + " has providerID .../" + instanceId);
    }
    String node = found.get().name();
    var selection = policy.select(cluster.podsOnNode(node));
    var evictable = selection.evictable();
    var refusals = DrainPolicy.predictRefusals(evictable, cluster.budgetsFor(evictable));
    var wouldEvict =
        evictable.stream()
            .map(io.gpufleet.drain.model.PodInfo::key)
            .filter(k -> !refusals.containsKey(k))
            .toList();
    return new io.gpufleet.drain.model.DryRunReport(
        instanceId,
        settings.clusterName(),
        node,
        true,
        wouldEvict,
        List.copyOf(refusals.values()),
        selection.skipped(),
        selection.terminating().stream().map(io.gpufleet.drain.model.PodInfo::key).toList(),
        wouldEvict.size()
            + " pod(s) would be evicted at once, "
            + refusals.size()
            + " would wait or be refused, "
            + selection.skipped().size()
            + " skipped");
  }

  DrainOutcome outcome(
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
    var blockedPods = new ArrayList<io.gpufleet.drain.model.PodInfo>();
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
    return new DrainOutcome(
        event.meta().id(),
        plan.kind().label(),
        instanceId,
        settings.clusterName(),
        nodeName,
        complete ? Status.DRAINED : Status.PARTIAL,
        message,
        plan.actions(),
        received,
        plan.deadline(),
        deadlineMet,
        new DrainOutcome.Timings(
            ms(received, cordoned),
            result.allIssuedAt() == null
                ? ms(received, cordoned)
                : ms(received, result.allIssuedAt()),
            gone == null ? null : ms(received, gone)),
        List.copyOf(evicted),
        List.copyOf(notEvicted),
        selection.skipped(),
        List.copyOf(capped));
  }

  private Map<String, List<DrainClusterPort.BudgetInfo>> budgets(
      List<io.gpufleet.drain.model.PodInfo> pods) {
    try {
      return cluster.budgetsFor(pods);
    } catch (RuntimeException e) {
      return Map.of();
    }
  }

  void patchMarker(String nodeName, DrainMarker marker) {
    cluster
        .getNode(nodeName)
        .ifPresent(
            n ->
                cluster.patchNode(
                    n,
                    new io.gpufleet.drain.model.NodeChange(
                        null,
                        false,
                        Map.of(),
                        Map.of(DrainMarker.ANNOTATION, marker.toJson()),
                        false)));
  }

  /** Best effort: lets Lambda's retry of this event take over at once instead of waiting. */
  private void release(String nodeName, DrainMarker marker) {
    try {
      patchMarker(nodeName, marker.with(DrainMarker.State.FAILED));
    } catch (RuntimeException ignored) {
      // the cluster is what failed; the claim then expires at marker.until()
    }
  }

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
        settings.clusterName(),
        node,
        status,
        message,
        received);
  }

  static long ms(Instant from, Instant to) {
    return Duration.between(from, to).toMillis();
  }
}

package io.gpufleet.drain;

import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.NodeChange;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import io.gpufleet.drain.model.PodReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Pure decisions of the drain: what to do, until when, to which pods, with what grace. */
public final class DrainPolicy {
  public static final String LB_EXCLUSION_LABEL =
      "node.kubernetes.io/exclude-from-external-load-balancers";
  static final long DEFAULT_GRACE_SECONDS = 30;
  static final int CRITICAL_PRIORITY = 2_000_000_000;

  private final DrainSettings settings;

  public DrainPolicy(DrainSettings settings) {
    this.settings = settings;
  }

  public record Plan(DrainKind kind, Set<Action> actions, Instant deadline, String deadlineBasis) {}

  /**
   * The deadline: Spot = event time + 120 s − margin (a hibernation gives no notice: event time);
   * Capacity Reservation = the event's instance-termination-time − margin, else like Spot; Capacity
   * Block = 30 minutes before its end date (when EC2 starts terminating) − margin; Health =
   * scheduled start − margin (now when the event gives none); every kind bounded by {@code
   * hardStop} (the function's own time limit less a reporting reserve).
   */
  public Plan plan(FleetEvent.InstanceEvent event, Instant hardStop) {
    DrainKind kind = DrainKind.of(event);
    Set<Action> actions = settings.actions().getOrDefault(kind, Set.of());
    Duration margin = settings.deadlineMargin();
    String less = " - " + margin.toSeconds() + "s margin";
    Instant wanted;
    String basis;
    switch (event) {
      case FleetEvent.SpotInterruption s when "hibernate".equals(s.instanceAction()) -> {
        wanted = s.meta().time();
        basis = "spot hibernation starts at the event time (no two-minute notice)";
      }
      case FleetEvent.SpotInterruption s -> {
        wanted = s.meta().time().plus(DrainSettings.SPOT_NOTICE).minus(margin);
        basis = "spot notice: event time + 120s" + less;
      }
      case FleetEvent.CapacityReservationInterruption c when c.terminationTime() != null -> {
        wanted = c.terminationTime().minus(margin);
        basis = "capacity reservation instance-termination-time" + less;
      }
      case FleetEvent.CapacityReservationInterruption c -> {
        wanted = c.meta().time().plus(DrainSettings.SPOT_NOTICE).minus(margin);
        basis = "capacity reservation notice: event time + 120s" + less;
      }
      case FleetEvent.CapacityBlockExpiring b -> {
        wanted = b.terminationsStart().minus(margin);
        basis = "capacity block terminations start (end date - 30m)" + less;
      }
      case FleetEvent.HealthScheduledChange h when h.startTime() == null -> {
        wanted = hardStop;
        basis = "AWS Health event without a start time: act now";
      }
      case FleetEvent.HealthScheduledChange h -> {
        wanted = h.startTime().minus(margin);
        basis = "AWS Health scheduled start" + less;
      }
      default -> {
        wanted = hardStop;
        basis = "function time limit";
      }
    }
    if (hardStop.isBefore(wanted)) {
      return new Plan(kind, actions, hardStop, basis + ", bounded by the function time limit");
    }
    return new Plan(kind, actions, wanted, basis);
  }

  /** The single patch that taints, labels, cordons and claims the node. */
  public NodeChange claim(Plan plan, NodeInfo node, DrainMarker marker) {
    NodeInfo.Taint taint = null;
    Map<String, String> labels = new LinkedHashMap<>();
    if (plan.actions().contains(Action.TAINT)) {
      String effect = settings.options().taintEffect();
      if (!node.hasTaint(settings.taintKey(), effect)) {
        taint = new NodeInfo.Taint(settings.taintKey(), plan.kind().label(), effect);
      }
      if (settings.excludeFromLoadBalancers()) {
        labels.put(LB_EXCLUSION_LABEL, "true");
      }
    }
    boolean cordon = plan.actions().contains(Action.CORDON) && !node.unschedulable();
    return new NodeChange(
        taint, cordon, labels, Map.of(DrainMarker.ANNOTATION, marker.toJson()), true);
  }

  /**
   * Why this node must not be touched, or null: it matches {@code DRAIN_EXCLUDE_NODES}, or it is a
   * Karpenter node and {@code DRAIN_LEAVE_KARPENTER_NODES} leaves those to Karpenter's own
   * interruption queue.
   */
  public String exclusion(NodeInfo node) {
    var options = settings.options();
    if (options.leaveKarpenterNodes()
        && node.labels() != null
        && node.labels().containsKey(DrainSettings.KARPENTER_NODEPOOL_LABEL)) {
      return "Karpenter node (label "
          + DrainSettings.KARPENTER_NODEPOOL_LABEL
          + "="
          + node.labels().get(DrainSettings.KARPENTER_NODEPOOL_LABEL)
          + "): left to Karpenter's interruption queue (DRAIN_LEAVE_KARPENTER_NODES=true)";
    }
    if (options.exclude() != null && options.exclude().matches(node.labels())) {
      return "node matches DRAIN_EXCLUDE_NODES '" + options.exclude().text() + "': not touched";
    }
    return null;
  }

  /** The node-level steps a plan takes, in order, as a dry run lists them. */
  public List<String> plannedNodeSteps(Plan plan, NodeInfo node) {
    var steps = new ArrayList<String>();
    if (plan.actions().contains(Action.TAINT)) {
      String effect = settings.options().taintEffect();
      steps.add(
          node.hasTaint(settings.taintKey(), effect)
              ? "taint " + settings.taintKey() + ":" + effect + " (already there)"
              : "taint " + settings.taintKey() + "=" + plan.kind().label() + ":" + effect);
      if (settings.excludeFromLoadBalancers()) {
        steps.add("label " + LB_EXCLUSION_LABEL + "=true");
      }
    }
    if (plan.actions().contains(Action.CORDON)) {
      steps.add(node.unschedulable() ? "cordon (already cordoned)" : "cordon");
    }
    return steps;
  }

  /** Which pods to evict (critical ones in a second wave) and which to leave, with why. */
  public record Selection(
      List<PodInfo> first,
      List<PodInfo> critical,
      List<PodInfo> terminating,
      List<PodReport> skipped) {
    /** The pods to evict, first wave then critical. */
    public List<PodInfo> evictable() {
      var out = new ArrayList<PodInfo>(first);
      out.addAll(critical);
      return out;
    }

    /** This selection less {@code pods} (kept: what is terminating and what was skipped). */
    public Selection without(List<PodInfo> pods) {
      return new Selection(
          first.stream().filter(p -> !pods.contains(p)).toList(),
          critical.stream().filter(p -> !pods.contains(p)).toList(),
          terminating,
          skipped);
    }

    /** Only {@code pods} of this selection, in their waves (nothing terminating or skipped). */
    public Selection only(List<PodInfo> pods) {
      return new Selection(
          first.stream().filter(pods::contains).toList(),
          critical.stream().filter(pods::contains).toList(),
          List.of(),
          List.of());
    }
  }

  public Selection select(List<PodInfo> pods) {
    var first = new ArrayList<PodInfo>();
    var critical = new ArrayList<PodInfo>();
    var terminating = new ArrayList<PodInfo>();
    var skipped = new ArrayList<PodReport>();
    for (PodInfo p : pods) {
      String skip = skipReason(p);
      if (skip != null) {
        skipped.add(
            new PodReport(p.key(), PodReport.Status.SKIPPED, skip, 0, null, null, isCritical(p)));
      } else if (p.terminating()) {
        terminating.add(p);
      } else if (isCritical(p)) {
        critical.add(p);
      } else {
        first.add(p);
      }
    }
    return new Selection(first, critical, terminating, skipped);
  }

  /**
   * Predicts which pods an eviction would refuse now, from the budgets' last computed
   * disruptionsAllowed: pods beyond that number wait for replacements; a pod under two budgets is a
   * configuration error.
   */
  public static java.util.Map<String, PodReport> predictRefusals(
      List<PodInfo> pods, Map<String, List<DrainClusterPort.BudgetInfo>> budgets) {
    var out = new LinkedHashMap<String, PodReport>();
    var used = new java.util.HashMap<String, Integer>();
    for (PodInfo p : pods) {
      var list = budgets.get(p.key());
      if (list == null || list.isEmpty()) {
        continue;
      }
      if (list.size() > 1) {
        out.put(
            p.key(),
            new PodReport(
                p.key(),
                PodReport.Status.CONFIG_ERROR,
                "more than one PodDisruptionBudget selects this pod: "
                    + list.stream().map(b -> b.namespace() + "/" + b.name()).toList(),
                0,
                requestedGrace(p),
                null,
                isCritical(p)));
        continue;
      }
      var b = list.get(0);
      String id = b.namespace() + "/" + b.name();
      int allowed = b.disruptionsAllowed() == null ? Integer.MAX_VALUE : b.disruptionsAllowed();
      int n = used.merge(id, 1, Integer::sum);
      if (n > allowed) {
        out.put(
            p.key(),
            new PodReport(
                p.key(),
                PodReport.Status.BLOCKED,
                b.describe()
                    + (allowed == 0
                        ? ": eviction refused until the budget recovers"
                        : ": allows " + allowed + " now; this pod waits for a replacement"),
                0,
                requestedGrace(p),
                null,
                isCritical(p)));
      }
    }
    return out;
  }

  String skipReason(PodInfo p) {
    if (p.mirror() || "Node".equals(p.ownerKind())) {
      return "mirror/static pod (managed by the kubelet)";
    }
    if ("Succeeded".equals(p.phase()) || "Failed".equals(p.phase())) {
      return "terminal pod (" + p.phase() + ")";
    }
    if (settings.skipDaemonSets() && "DaemonSet".equals(p.ownerKind())) {
      return "DaemonSet pod (DRAIN_SKIP_DAEMONSETS=true)";
    }
    return null;
  }

  static boolean isCritical(PodInfo p) {
    return "system-node-critical".equals(p.priorityClassName())
        || "system-cluster-critical".equals(p.priorityClassName())
        || (p.priority() != null && p.priority() >= CRITICAL_PRIORITY);
  }

  /** The pod's requested grace period, capped to the whole seconds left before the deadline. */
  public static long grantedGrace(PodInfo p, Duration timeLeft) {
    long requested = requestedGrace(p);
    long available = Math.max(1, timeLeft.toSeconds());
    return Math.min(requested, available);
  }

  public static long requestedGrace(PodInfo p) {
    return p.terminationGracePeriodSeconds() == null
        ? DEFAULT_GRACE_SECONDS
        : p.terminationGracePeriodSeconds();
  }
}

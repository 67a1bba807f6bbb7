package io.gpufleet.drain;

import io.gpufleet.drain.model.DrainKind;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Replacement before removal for Auto Scaling groups that opted in (group tag {@link #OPT_IN} =
 * {@code true}), have no Capacity Rebalancing and hold the interrupted instance (Karpenter nodes
 * are in no group): on a rebalance recommendation, Spot or reservation warning the group's desired
 * capacity is raised by one (never above MaxSize); once the drain is done the old instance is
 * terminated with ShouldDecrementDesiredCapacity, so the group ends at its original size.
 *
 * <p>Each raise is recorded as a group tag {@link #RAISED_FOR}{@code <instance-id>} = the group's
 * size before the raises in progress, written before the raise. The wanted capacity is always
 * recomputed from those tags (lowest recorded size + number of instances being replaced), so a
 * redelivered event raises nothing more, and several nodes of one group interrupted at once raise
 * it by one each even when their reads interleave. A refused raise removes its tag: the group is
 * left as it was.
 */
public final class EarlyReplacement {
  public static final String OPT_IN = "gpufleet.io/replace-early";
  public static final String RAISED_FOR = "gpufleet.io/raised-for/";

  static final Set<DrainKind> KINDS =
      EnumSet.of(
          DrainKind.REBALANCE,
          DrainKind.SPOT_INTERRUPTION,
          DrainKind.CAPACITY_RESERVATION_INTERRUPTION);

  /** What replacement did for one instance, for the outcome. */
  public record Result(
      String group, Action action, Integer desiredBefore, Integer desiredAfter, String note) {
    /** A call that failed before a group was known: nothing was changed. */
    static Result failed(String note) {
      return new Result(null, Action.FAILED, null, null, note);
    }

    /** True when the group is raised for the instance (by this call or an earlier delivery). */
    public boolean raised() {
      return action == Action.RAISED || action == Action.ALREADY_RAISED;
    }
  }

  public enum Action {
    RAISED,
    ALREADY_RAISED,
    AT_MAX,
    NOT_OPTED_IN,
    CAPACITY_REBALANCE,
    NO_GROUP,
    FAILED,
    TERMINATED,
    NOT_RAISED
  }

  private final ReplacementPort groups;

  public EarlyReplacement(ReplacementPort groups) {
    this.groups = groups;
  }

  /** Raises the instance's group by one for {@code kind}; empty for kinds it does not act on. */
  public Optional<Result> raise(String instanceId, DrainKind kind) {
    if (!KINDS.contains(kind)) {
      return Optional.empty();
    }
    Optional<ReplacementPort.Group> found;
    try {
      found = groups.groupOf(instanceId);
    } catch (RuntimeException e) {
      return Optional.of(
          Result.failed("DescribeAutoScalingInstances failed, nothing changed: " + e.getMessage()));
    }
    if (found.isEmpty()) {
      return Optional.of(
          new Result(
              null,
              Action.NO_GROUP,
              null,
              null,
              "not in an Auto Scaling group (Karpenter or unmanaged): its owner replaces it"));
    }
    var g = found.get();
    if (!"true".equals(g.tags().get(OPT_IN))) {
      return Optional.of(
          new Result(
              g.name(), Action.NOT_OPTED_IN, g.desired(), g.desired(), OPT_IN + " not true"));
    }
    if (g.capacityRebalance()) {
      return Optional.of(
          new Result(
              g.name(),
              Action.CAPACITY_REBALANCE,
              g.desired(),
              g.desired(),
              "Capacity Rebalancing is on: the group replaces the instance itself"));
    }
    String key = RAISED_FOR + instanceId;
    boolean already = g.tags().containsKey(key);
    if (!already) {
      if (g.desired() >= g.max()) {
        return Optional.of(
            new Result(
                g.name(),
                Action.AT_MAX,
                g.desired(),
                g.desired(),
                "group at its MaxSize " + g.max() + ": no replacement launched early"));
      }
      try {
        groups.tag(g.name(), key, Integer.toString(base(g)));
      } catch (RuntimeException e) {
        return Optional.of(
            new Result(
                g.name(),
                Action.FAILED,
                g.desired(),
                g.desired(),
                "CreateOrUpdateTags " + key + " failed, group left as it was: " + e.getMessage()));
      }
    }
    ReplacementPort.Group now;
    try {
      now = groups.group(g.name()).orElse(g);
    } catch (RuntimeException e) {
      now = g;
    }
    int wanted = Math.min(wanted(now), now.max());
    if (now.desired() < wanted) {
      try {
        groups.setDesired(now.name(), wanted);
      } catch (ReplacementPort.Refused | RuntimeException e) {
        if (!already) {
          groups.untag(now.name(), key);
        }
        return Optional.of(
            new Result(
                now.name(),
                Action.FAILED,
                now.desired(),
                now.desired(),
                "SetDesiredCapacity "
                    + wanted
                    + " refused, group left as it was: "
                    + e.getMessage()));
      }
    }
    return Optional.of(
        new Result(
            now.name(),
            already ? Action.ALREADY_RAISED : Action.RAISED,
            already ? null : g.desired(),
            Math.max(now.desired(), wanted),
            null));
  }

  /**
   * The group's size before this episode of raises: what the raises still in progress recorded,
   * else its desired capacity now.
   */
  static int base(ReplacementPort.Group g) {
    int recorded = wanted(g) - raisedCount(g);
    return raisedCount(g) == 0 ? g.desired() : recorded;
  }

  static int raisedCount(ReplacementPort.Group g) {
    return (int)
        g.tags().keySet().stream()
            .filter(
                k ->
                    k.startsWith(RAISED_FOR)
                        && g.instances().contains(k.substring(RAISED_FOR.length())))
            .count();
  }

  /**
   * The lowest desired capacity recorded before a raise, plus one per instance still being replaced
   * (a tag whose instance already left the group no longer counts).
   */
  static int wanted(ReplacementPort.Group g) {
    int base = Integer.MAX_VALUE;
    int raised = 0;
    for (var e : g.tags().entrySet()) {
      if (e.getKey().startsWith(RAISED_FOR)
          && g.instances().contains(e.getKey().substring(RAISED_FOR.length()))) {
        base = Math.min(base, Integer.parseInt(e.getValue()));
        raised++;
      }
    }
    return raised == 0 ? g.desired() : base + raised;
  }

  /** After the drain: terminates a replaced instance, decrementing the desired capacity. */
  public Optional<Result> finish(String instanceId) {
    Optional<ReplacementPort.Group> found;
    try {
      found = groups.groupOf(instanceId);
    } catch (RuntimeException e) {
      return Optional.of(
          Result.failed(
              "DescribeAutoScalingInstances failed, old instance not terminated: "
                  + e.getMessage()));
    }
    String key = RAISED_FOR + instanceId;
    if (found.isEmpty() || !found.get().tags().containsKey(key)) {
      return Optional.empty();
    }
    var g = found.get();
    try {
      groups.terminateDecrementing(instanceId);
    } catch (ReplacementPort.Refused | RuntimeException e) {
      return Optional.of(
          new Result(
              g.name(),
              Action.FAILED,
              g.desired(),
              g.desired(),
              "TerminateInstanceInAutoScalingGroup refused: " + e.getMessage()));
    }
    String note = null;
    try {
      groups.untag(g.name(), key);
    } catch (RuntimeException e) {
      // the tag's instance has left the group: it no longer counts (see wanted)
      note = "DeleteTags " + key + " failed (harmless, its instance left the group): " + e;
    }
    return Optional.of(new Result(g.name(), Action.TERMINATED, g.desired(), g.desired() - 1, note));
  }
}

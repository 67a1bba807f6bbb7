package io.gpufleet.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.model.Change;
import io.gpufleet.schedule.model.Change.Action;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.model.Write;
import io.gpufleet.schedule.policy.Policy;
import io.gpufleet.schedule.policy.Policy.Budget;
import io.gpufleet.schedule.policy.Policy.NodePoolRule;
import io.gpufleet.schedule.policy.Policy.NodePoolSetting;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import io.gpufleet.schedule.policy.Policy.WorkloadRule;
import io.gpufleet.schedule.policy.WindowClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pure decision: policy x now x what the cluster holds -> the writes that bring every object to
 * the wanted state of the window in force, and what is deliberately left alone. No I/O.
 *
 * <p>Bookkeeping is presented as annotations of the object (for Deployments and StatefulSets the
 * gateway reads them from the namespace's state ConfigMap instead): {@value #ORIGINAL} holds the
 * managed values from before gpufleet changed them, {@value #APPLIED} what gpufleet set (and in
 * which window). An object whose managed values no longer equal {@value #APPLIED} was changed by
 * somebody else: while the window still wants gpufleet's value it is held (left alone), afterwards
 * it is released (bookkeeping dropped, the changed values kept, only untouched values restored).
 */
public final class Planner {
  public static final String ORIGINAL = "gpufleet.io/original";
  public static final String APPLIED = "gpufleet.io/applied";
  public static final String KEDA_PAUSED = "autoscaling.keda.sh/paused-replicas";

  /** One planned write (or a notice when {@code write} is null). */
  public record Step(Change change, Write write) {}

  public record Plan(WindowClock.Active window, List<Step> steps) {
    public List<Step> writes() {
      return steps.stream().filter(s -> s.write() != null).toList();
    }
  }

  private Planner() {}

  public static Plan plan(
      Policy policy, Instant now, List<TargetState> nodePools, List<TargetState> workloads) {
    var window = WindowClock.at(policy, now);
    var steps = new ArrayList<Step>();
    for (TargetState pool : nodePools) {
      nodePool(policy, window.name(), pool).ifPresent(steps::add);
    }
    var scaledBy = scaleTargets(workloads);
    for (TargetState w : workloads) {
      workload(policy, window.name(), now, w, scaledBy).ifPresent(steps::add);
    }
    return new Plan(window, List.copyOf(steps));
  }

  // ------------------------------------------------------------------ NodePools

  private static Optional<Step> nodePool(Policy policy, String window, TargetState pool) {
    NodePoolRule rule =
        policy.nodePools().stream()
            .filter(r -> r.selector().matches(pool.ref().name(), pool.labels()))
            .findFirst()
            .orElse(null);
    NodePoolSetting setting = rule == null ? null : rule.windows().get(window);
    Optional<ObjectNode> wanted = Optional.empty();
    if (setting != null) {
      ObjectNode base = originalOrCurrent(pool);
      ObjectNode w = Json.MAPPER.createObjectNode();
      ArrayNode budgets = w.putArray("budgets");
      for (Budget b : setting.budgets()) {
        ObjectNode bn = budgets.addObject().put("nodes", b.nodes());
        if (!b.reasons().isEmpty()) {
          b.reasons().forEach(bn.putArray("reasons")::add);
        }
      }
      if (setting.consolidateAfter() != null) {
        w.put("consolidateAfter", setting.consolidateAfter());
      } else if (base != null && base.has("consolidateAfter")) {
        w.set("consolidateAfter", base.get("consolidateAfter"));
      }
      wanted = Optional.of(w);
    }
    return decide(pool, rule == null ? null : rule.name(), window, wanted, null, null);
  }

  // ------------------------------------------------------------------ workloads

  private static Optional<Step> workload(
      Policy policy, String window, Instant now, TargetState w, Map<String, String> scaledBy) {
    WorkloadKind kind = w.workloadKind();
    WorkloadRule rule =
        policy.workloads().stream()
            .filter(r -> r.kinds().contains(kind))
            .filter(r -> r.selector().matches(w.ref().namespace(), w.labels(), w.annotations()))
            .findFirst()
            .orElse(null);
    String ruleName = rule == null ? null : rule.name();
    String skip = null;
    if ("true".equalsIgnoreCase(w.annotation(policy.excludeAnnotation()))) {
      skip = "excluded by annotation " + policy.excludeAnnotation();
    } else if ((kind == WorkloadKind.DEPLOYMENT || kind == WorkloadKind.STATEFULSET)
        && scaledBy.containsKey(key(w.ref().namespace(), w.ref().kind(), w.ref().name()))) {
      skip =
          "scaled by "
              + scaledBy.get(key(w.ref().namespace(), w.ref().kind(), w.ref().name()))
              + ": the schedule changes that object, never the workload it scales";
    } else if (kind == WorkloadKind.HPA && w.controlledBy() != null) {
      skip = "managed by " + w.controlledBy() + ": the schedule pauses the ScaledObject instead";
    }
    Integer replicas = rule == null || skip != null ? null : rule.replicas().get(window);
    Optional<ObjectNode> wanted = Optional.empty();
    String note = null;
    if (replicas != null) {
      ObjectNode f = Json.MAPPER.createObjectNode();
      switch (kind) {
        case DEPLOYMENT, STATEFULSET -> f.put("replicas", replicas);
        case HPA -> {
          int min = Math.max(1, replicas);
          if (w.maxReplicas() != null && min > w.maxReplicas()) {
            min = w.maxReplicas();
          }
          if (min != replicas) {
            note = "minReplicas " + replicas + " clamped to " + min + " (1..maxReplicas)";
          }
          f.put("minReplicas", min);
        }
        case SCALED_OBJECT -> f.put("pausedReplicas", String.valueOf(replicas));
      }
      wanted = Optional.of(f);
    }
    boolean managed = w.annotation(APPLIED) != null;
    if (skip != null && !managed) {
      return rule == null ? Optional.empty() : Optional.of(notice(w, ruleName, Action.SKIP, skip));
    }
    if (wanted.isPresent() && !managed && w.created() != null) {
      Instant graceEnds = w.created().plus(policy.gracePeriod());
      if (now.isBefore(graceEnds) && !wanted.get().equals(current(w, wanted.get()))) {
        return Optional.of(
            notice(
                w,
                ruleName,
                Action.SKIP,
                "new workload (created " + w.created() + "): left alone until " + graceEnds));
      }
    }
    return decide(w, ruleName, window, wanted, note, skip);
  }

  /** namespace/kind/name of a Deployment or StatefulSet -> the HPA or ScaledObject scaling it. */
  private static Map<String, String> scaleTargets(List<TargetState> workloads) {
    var out = new LinkedHashMap<String, String>();
    for (TargetState w : workloads) {
      if ((w.workloadKind() == WorkloadKind.HPA || w.workloadKind() == WorkloadKind.SCALED_OBJECT)
          && w.scaleTargetName() != null) {
        String targetKind = w.scaleTargetKind() == null ? "Deployment" : w.scaleTargetKind();
        out.putIfAbsent(
            key(w.ref().namespace(), targetKind, w.scaleTargetName()),
            w.ref().kind() + " " + w.ref().name());
      }
    }
    return out;
  }

  private static String key(String ns, String kind, String name) {
    return ns + "/" + kind + "/" + name;
  }

  // ------------------------------------------------------------------ the decision

  /**
   * {@code wanted} empty: the window wants the object's own values back (restore if gpufleet
   * changed it, else nothing to do).
   */
  static Optional<Step> decide(
      TargetState s,
      String rule,
      String window,
      Optional<ObjectNode> wanted,
      String note,
      String skip) {
    String appliedText = s.annotation(APPLIED);
    ObjectNode current = s.fields();
    if (appliedText == null) {
      if (wanted.isEmpty() || wanted.get().equals(current(s, wanted.get()))) {
        return Optional.empty();
      }
      ObjectNode original = current.deepCopy();
      return Optional.of(apply(s, rule, window, original, wanted.get(), note));
    }
    ObjectNode applied;
    ObjectNode original;
    try {
      applied = (ObjectNode) Json.MAPPER.readTree(appliedText).get("fields");
      original = (ObjectNode) Json.MAPPER.readTree(s.annotation(ORIGINAL));
      if (applied == null || original == null) {
        throw new IllegalArgumentException("missing");
      }
    } catch (Exception e) {
      return Optional.of(
          notice(
              s,
              rule,
              Action.SKIP,
              "bookkeeping annotations "
                  + APPLIED
                  + "/"
                  + ORIGINAL
                  + " are unreadable; remove them to let gpufleet manage this object again"));
    }
    var changed = new ArrayList<String>();
    applied
        .fieldNames()
        .forEachRemaining(
            k -> {
              if (!java.util.Objects.equals(applied.get(k), current.get(k))) {
                changed.add(k);
              }
            });
    if (!changed.isEmpty()) {
      String who =
          "changed by someone else since gpufleet set it ("
              + describe(changed, applied, current)
              + ")";
      if (wanted.isPresent() && wanted.get().equals(applied)) {
        return Optional.of(
            notice(s, rule, Action.HOLD, who + ": left alone while window " + window + " lasts"));
      }
      // release: fields nobody touched go back to the original, changed ones stay theirs
      ObjectNode fields = Json.MAPPER.createObjectNode();
      ObjectNode after = current.deepCopy();
      applied
          .fieldNames()
          .forEachRemaining(
              k -> {
                if (!changed.contains(k)) {
                  if (original.has(k)) {
                    fields.set(k, original.get(k));
                    after.set(k, original.get(k));
                  } else {
                    after.remove(k);
                  }
                }
              });
      var change =
          new Change(
              s.ref().kind(),
              s.ref().namespace(),
              s.ref().name(),
              rule,
              Action.RELEASE,
              current,
              after,
              who + ": not restored, bookkeeping removed",
              Change.Result.NONE,
              null);
      return Optional.of(new Step(change, new Write(s.ref(), fields, Map.of())));
    }
    if (wanted.isEmpty() || wanted.get().equals(original)) {
      // the window wants the original values back (explicitly or by not naming the object)
      var change =
          new Change(
              s.ref().kind(),
              s.ref().namespace(),
              s.ref().name(),
              rule,
              Action.RESTORE,
              current,
              original,
              skip != null
                  ? skip + "; original restored"
                  : "window " + window + ": original restored",
              Change.Result.NONE,
              null);
      return Optional.of(new Step(change, new Write(s.ref(), original, Map.of())));
    }
    if (wanted.get().equals(applied)) {
      return Optional.empty();
    }
    return Optional.of(apply(s, rule, window, original, wanted.get(), note));
  }

  private static Step apply(
      TargetState s,
      String rule,
      String window,
      ObjectNode original,
      ObjectNode wanted,
      String note) {
    ObjectNode appliedDoc = Json.MAPPER.createObjectNode();
    appliedDoc.put("window", window);
    appliedDoc.set("fields", wanted);
    var annotations = new LinkedHashMap<String, String>();
    annotations.put(ORIGINAL, Json.write(original));
    annotations.put(APPLIED, Json.write(appliedDoc));
    var change =
        new Change(
            s.ref().kind(),
            s.ref().namespace(),
            s.ref().name(),
            rule,
            Action.APPLY,
            s.fields(),
            wanted,
            note == null ? "window " + window : "window " + window + "; " + note,
            Change.Result.NONE,
            null);
    return new Step(change, new Write(s.ref(), wanted, annotations));
  }

  /** The current values of the fields {@code like} names (absent ones stay absent). */
  private static ObjectNode current(TargetState s, ObjectNode like) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    like.fieldNames()
        .forEachRemaining(
            k -> {
              if (s.fields().has(k)) {
                out.set(k, s.fields().get(k));
              }
            });
    return out;
  }

  private static ObjectNode originalOrCurrent(TargetState s) {
    String text = s.annotation(ORIGINAL);
    if (text != null && s.annotation(APPLIED) != null) {
      try {
        JsonNode n = Json.MAPPER.readTree(text);
        if (n instanceof ObjectNode o) {
          return o;
        }
      } catch (Exception e) {
        // unreadable bookkeeping is reported by decide()
      }
    }
    return s.fields();
  }

  private static String describe(List<String> keys, ObjectNode applied, ObjectNode current) {
    var parts = new ArrayList<String>();
    for (String k : keys) {
      parts.add(
          k
              + ": gpufleet "
              + (applied.has(k) ? applied.get(k).toString() : "unset")
              + ", now "
              + (current.has(k) ? current.get(k).toString() : "unset"));
    }
    return String.join("; ", parts);
  }

  private static Step notice(TargetState s, String rule, Action action, String why) {
    return new Step(
        new Change(
            s.ref().kind(),
            s.ref().namespace(),
            s.ref().name(),
            rule,
            action,
            s.fields(),
            s.fields(),
            why,
            Change.Result.NONE,
            null),
        null);
  }

  static Set<String> managedKeys(TargetState s) {
    return s.isNodePool()
        ? Set.of("budgets", "consolidateAfter")
        : switch (s.workloadKind()) {
          case DEPLOYMENT, STATEFULSET -> Set.of("replicas");
          case HPA -> Set.of("minReplicas");
          case SCALED_OBJECT -> Set.of("pausedReplicas");
        };
  }
}

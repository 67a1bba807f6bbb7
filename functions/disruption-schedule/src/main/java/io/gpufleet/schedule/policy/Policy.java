package io.gpufleet.schedule.policy;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A validated disruption schedule (see {@link PolicyParser} for the document format). Windows are
 * wall-clock times in {@link #zone()}; whenever no named window is in force, and all day on a
 * holiday, the {@link #defaultWindow()} is.
 */
public record Policy(
    ZoneId zone,
    String defaultWindow,
    List<Window> windows,
    Set<LocalDate> holidays,
    List<NodePoolRule> nodePools,
    List<WorkloadRule> workloads,
    String excludeAnnotation,
    Duration gracePeriod) {

  public static final String DEFAULT_EXCLUDE_ANNOTATION = "gpufleet.io/exclude";
  public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofMinutes(15);

  /**
   * A named weekly window: on each of {@code days}, from {@code startMinute} (minutes after local
   * midnight) to {@code endMinute} (1..1440); when {@code endMinute <= startMinute} it ends on the
   * next day (crosses midnight). Days are the days a window starts on. {@code leadTime} (zero:
   * none) puts the window in force that long before each start, measured in elapsed time (so a
   * fleet that needs 10 minutes to warm up gets 10 minutes even across a DST change).
   */
  public record Window(
      String name, Set<DayOfWeek> days, int startMinute, int endMinute, Duration leadTime) {
    public Window(String name, Set<DayOfWeek> days, int startMinute, int endMinute) {
      this(name, days, startMinute, endMinute, Duration.ZERO);
    }

    public Window {
      leadTime = leadTime == null ? Duration.ZERO : leadTime;
    }

    /** Minutes from start to end (a window crossing midnight ends the next day). */
    public int lengthMinutes() {
      return crossesMidnight() ? 1440 - startMinute + endMinute : endMinute - startMinute;
    }

    public boolean crossesMidnight() {
      return endMinute <= startMinute;
    }

    public String hours() {
      return hhmm(startMinute) + "-" + hhmm(endMinute);
    }

    public static String hhmm(int minute) {
      return String.format("%02d:%02d", minute / 60, minute % 60);
    }
  }

  /** One Karpenter budget as this policy writes it: always active while its window is. */
  public record Budget(String nodes, List<String> reasons) {}

  /** What a NodePool gets during one window; {@code consolidateAfter} null keeps the original. */
  public record NodePoolSetting(List<Budget> budgets, String consolidateAfter) {}

  /** NodePools by name or labels (both given: both must match). */
  public record NodePoolSelector(Set<String> names, Map<String, String> labels) {
    public boolean matches(String name, Map<String, String> objectLabels) {
      if (!names.isEmpty() && !names.contains(name)) {
        return false;
      }
      Map<String, String> have = objectLabels == null ? Map.of() : objectLabels;
      return labels.entrySet().stream().allMatch(e -> e.getValue().equals(have.get(e.getKey())));
    }
  }

  /**
   * Windows not named in {@code windows} restore the NodePool's own disruption settings (the ones
   * it had before this policy changed them).
   */
  public record NodePoolRule(
      String name, NodePoolSelector selector, Map<String, NodePoolSetting> windows) {}

  public enum WorkloadKind {
    DEPLOYMENT("Deployment"),
    STATEFULSET("StatefulSet"),
    SCALED_OBJECT("ScaledObject"),
    HPA("HorizontalPodAutoscaler");

    private final String kind;

    WorkloadKind(String kind) {
      this.kind = kind;
    }

    public String kind() {
      return kind;
    }

    public static Optional<WorkloadKind> byKind(String kind) {
      for (WorkloadKind k : values()) {
        if (k.kind.equalsIgnoreCase(kind)
            || (k == HPA && "hpa".equalsIgnoreCase(kind))
            || k.name().equalsIgnoreCase(kind)) {
          return Optional.of(k);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * Workloads in {@code namespaces} (empty: all) with {@code labels}, or carrying the opt-in {@code
   * annotation} set to "true" (when given, labels are not required).
   */
  public record WorkloadSelector(
      Set<String> namespaces, Map<String, String> labels, String annotation) {
    public boolean matches(
        String namespace, Map<String, String> objectLabels, Map<String, String> annotations) {
      if (!namespaces.isEmpty() && !namespaces.contains(namespace)) {
        return false;
      }
      if (annotation != null) {
        return annotations != null && "true".equalsIgnoreCase(annotations.get(annotation));
      }
      Map<String, String> have = objectLabels == null ? Map.of() : objectLabels;
      return labels.entrySet().stream().allMatch(e -> e.getValue().equals(have.get(e.getKey())));
    }
  }

  /** Replicas per window; windows not named restore the original count. */
  public record WorkloadRule(
      String name,
      WorkloadSelector selector,
      Set<WorkloadKind> kinds,
      Map<String, Integer> replicas) {}

  public Set<String> windowNames() {
    var names = new java.util.LinkedHashSet<String>();
    windows.forEach(w -> names.add(w.name()));
    names.add(defaultWindow);
    return names;
  }
}

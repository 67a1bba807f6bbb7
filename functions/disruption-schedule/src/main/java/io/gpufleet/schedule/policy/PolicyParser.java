package io.gpufleet.schedule.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.schedule.policy.Policy.Budget;
import io.gpufleet.schedule.policy.Policy.NodePoolRule;
import io.gpufleet.schedule.policy.Policy.NodePoolSelector;
import io.gpufleet.schedule.policy.Policy.NodePoolSetting;
import io.gpufleet.schedule.policy.Policy.Window;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import io.gpufleet.schedule.policy.Policy.WorkloadRule;
import io.gpufleet.schedule.policy.Policy.WorkloadSelector;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and validates a policy document (YAML or JSON). Every problem is collected with its path,
 * so one run shows all of them; nothing is returned unless the whole document is valid.
 *
 * <pre>
 * apiVersion: gpufleet.io/v1          # optional
 * kind: DisruptionSchedule            # optional
 * timeZone: Europe/Berlin             # IANA zone, required
 * defaultWindow: off-hours            # in force when no window is, and all day on holidays
 * windows:
 *   business-hours: { days: mon-fri, hours: "08:00-19:00", leadTime: 10m }   # in force from 07:50
 *   night-batch:    { days: [sat], hours: "22:00-02:00" }    # crosses midnight
 * holidays: [2026-12-24, 2026-12-25]
 * excludeAnnotation: gpufleet.io/exclude                      # default
 * gracePeriod: 15m                                            # new workloads are left alone
 * nodePools:
 *   - name: gpu
 *     selector: { names: [gpu-a100], labels: { team: ml } }
 *     windows:
 *       business-hours: { budgets: [{ nodes: "10%" }], consolidateAfter: 30m }
 *       off-hours: { budgets: [{ nodes: "50%", reasons: [Underutilized, Empty] }] }
 * workloads:
 *   - name: batch
 *     selector: { namespaces: [ml], labels: { tier: batch } }   # or { annotation: gpufleet.io/off-hours }
 *     kinds: [Deployment, StatefulSet, ScaledObject, HorizontalPodAutoscaler]   # default: all
 *     replicas: { off-hours: 0 }                                  # windows not named: original
 * </pre>
 */
public final class PolicyParser {
  static final Pattern HOURS = Pattern.compile("(\\d{1,2}):(\\d{2})\\s*-\\s*(\\d{1,2}):(\\d{2})");
  static final Pattern NODES = Pattern.compile("(\\d+)(%?)");

  private final List<String> problems = new ArrayList<>();

  private PolicyParser() {}

  /**
   * Parses {@code text} (YAML, or JSON when it starts with a brace); {@code source} names it. The
   * structure is checked by {@code schemas/schedule-policy.schema.json}, the meaning (time zone,
   * hours, overlaps, lead times, window references, selectors) here; both report with the path.
   */
  public static Policy parse(String text, String source) {
    JsonNode root;
    try {
      String trimmed = text == null ? "" : text.strip();
      if (trimmed.isEmpty()) {
        throw new PolicyException(source, List.of("the document is empty"));
      }
      root =
          trimmed.startsWith("{") ? Json.MAPPER.readTree(trimmed) : Yaml.MAPPER.readTree(trimmed);
    } catch (IOException e) {
      String msg =
          e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
      throw new PolicyException(source, List.of("not valid YAML/JSON: " + msg));
    }
    if (root == null || !root.isObject()) {
      throw new PolicyException(
          source,
          List.of("(document): must be a mapping with timeZone, defaultWindow, windows, ..."));
    }
    List<String> structural = PolicySchema.problems(root);
    var parser = new PolicyParser();
    Policy policy = parser.policy(root);
    if (structural.isEmpty() && parser.problems.isEmpty()) {
      return policy;
    }
    // one message per place: what the schema found there wins over what the meaning check found
    Set<String> placed = new LinkedHashSet<>();
    structural.forEach(p -> placed.add(p.substring(0, p.indexOf(": "))));
    var all = new ArrayList<>(structural);
    parser.problems.stream()
        .filter(p -> !placed.contains(p.substring(0, p.indexOf(": "))))
        .forEach(all::add);
    throw new PolicyException(source, all);
  }

  private void problem(String path, String message) {
    problems.add(path + ": " + message);
  }

  private Policy policy(JsonNode root) {
    ZoneId zone = zone(text(root, "timeZone"));
    String defaultWindow = text(root, "defaultWindow");
    List<Window> windows = windows(root.get("windows"));
    if (defaultWindow != null && windows.stream().anyMatch(w -> w.name().equals(defaultWindow))) {
      problem(
          "windows." + defaultWindow,
          "the default window has no hours: it is in force whenever no other window is");
    }
    overlaps(windows);
    leadTimes(windows);
    Set<String> windowNames = new LinkedHashSet<>();
    windows.forEach(w -> windowNames.add(w.name()));
    if (defaultWindow != null) {
      windowNames.add(defaultWindow);
    }
    Set<LocalDate> holidays = holidays(root.get("holidays"));
    String exclude = text(root, "excludeAnnotation");
    String graceText = text(root, "gracePeriod");
    Duration grace = graceText == null ? Policy.DEFAULT_GRACE_PERIOD : parseGoDuration(graceText);
    List<NodePoolRule> pools = nodePools(root.get("nodePools"), windowNames);
    List<WorkloadRule> workloads = workloads(root.get("workloads"), windowNames);
    if (!problems.isEmpty() || zone == null || defaultWindow == null) {
      return null;
    }
    return new Policy(
        zone,
        defaultWindow,
        List.copyOf(windows),
        Set.copyOf(holidays),
        List.copyOf(pools),
        List.copyOf(workloads),
        exclude == null ? Policy.DEFAULT_EXCLUDE_ANNOTATION : exclude,
        grace);
  }

  private ZoneId zone(String id) {
    if (id == null) {
      return null;
    }
    if (!id.contains("/") && !id.equals("UTC")) {
      problem("timeZone", "'" + id + "' is not an IANA time zone (e.g. Europe/Berlin, UTC)");
      return null;
    }
    try {
      return ZoneId.of(id);
    } catch (DateTimeException e) {
      problem("timeZone", "unknown time zone '" + id + "' (use an IANA name like Europe/Berlin)");
      return null;
    }
  }

  private List<Window> windows(JsonNode node) {
    var out = new ArrayList<Window>();
    if (node == null || !node.isObject()) {
      return out;
    }
    for (var it = node.fields(); it.hasNext(); ) {
      var e = it.next();
      String path = "windows." + e.getKey();
      JsonNode w = e.getValue();
      Set<DayOfWeek> days = days(w.get("days"), path + ".days");
      int[] hours = hours(text(w, "hours"), path + ".hours");
      Duration lead = leadTime(text(w, "leadTime"), path + ".leadTime");
      if (days != null && hours != null) {
        out.add(new Window(e.getKey(), days, hours[0], hours[1], lead));
      }
    }
    return out;
  }

  /** Days and day ranges ("mon-fri", "sat,sun", [mon, wed-fri]); the schema checked the shape. */
  private Set<DayOfWeek> days(JsonNode node, String path) {
    List<String> parts = new ArrayList<>();
    if (node == null) {
      return null;
    } else if (node.isTextual()) {
      for (String p : node.asText().split(",")) {
        parts.add(p.trim());
      }
    } else {
      node.forEach(n -> parts.add(n.asText().trim()));
    }
    var days = EnumSet.noneOf(DayOfWeek.class);
    for (String part : parts) {
      String[] range = part.split("-", -1);
      DayOfWeek from = day(range[0]);
      DayOfWeek to = range.length == 2 ? day(range[1]) : from;
      if (range.length > 2 || from == null || to == null) {
        problem(path, "'" + part + "' is not a day (mon, tue, wed, thu, fri, sat, sun)");
        return null;
      }
      for (DayOfWeek d = from; ; d = d.plus(1)) {
        days.add(d);
        if (d == to) {
          break;
        }
      }
    }
    return days.isEmpty() ? null : days;
  }

  static DayOfWeek day(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.length() < 3) {
      return null;
    }
    for (DayOfWeek d : DayOfWeek.values()) {
      String full = d.name().toLowerCase(Locale.ROOT);
      if (full.equals(t) || full.substring(0, 3).equals(t)) {
        return d;
      }
    }
    return null;
  }

  private int[] hours(String text, String path) {
    Matcher m = text == null ? null : HOURS.matcher(text.trim());
    if (m == null || !m.matches()) {
      return null;
    }
    int sh = Integer.parseInt(m.group(1));
    int sm = Integer.parseInt(m.group(2));
    int eh = Integer.parseInt(m.group(3));
    int em = Integer.parseInt(m.group(4));
    if (sh > 23 || sm > 59) {
      problem(path, "start '" + m.group(1) + ":" + m.group(2) + "' is not a valid HH:MM time");
      return null;
    }
    if ((eh > 23 || em > 59) && !(eh == 24 && em == 0)) {
      problem(path, "end '" + m.group(3) + ":" + m.group(4) + "' is not a valid HH:MM time");
      return null;
    }
    int start = sh * 60 + sm;
    int end = eh * 60 + em;
    if (start == end) {
      problem(path, "'" + text + "' is empty (start equals end); for a whole day use 00:00-24:00");
      return null;
    }
    return new int[] {start, end == 0 ? 1440 : end};
  }

  private Duration leadTime(String text, String path) {
    if (text == null) {
      return Duration.ZERO;
    }
    if (text.startsWith("-")) {
      problem(
          path, "'" + text + "' is negative; a lead time is how long before the window it starts");
      return Duration.ZERO;
    }
    return parseGoDuration(text);
  }

  /**
   * A window's lead time must be shorter than the time before each of its starts in which no window
   * (its own previous occurrence included) is in force; otherwise it would cut into that window or
   * never end.
   */
  private void leadTimes(List<Window> windows) {
    int week = 7 * 1440;
    boolean[] owned = new boolean[week];
    for (Window w : windows) {
      for (DayOfWeek d : w.days()) {
        int base = (d.getValue() - 1) * 1440 + w.startMinute();
        for (int k = 0; k < w.lengthMinutes(); k++) {
          owned[(base + k) % week] = true;
        }
      }
    }
    for (Window w : windows) {
      if (w.leadTime().isZero()) {
        continue;
      }
      long shortest = Long.MAX_VALUE;
      DayOfWeek shortestDay = null;
      for (DayOfWeek d : w.days()) {
        int start = (d.getValue() - 1) * 1440 + w.startMinute();
        int gap = 0;
        while (gap < week && !owned[Math.floorMod(start - gap - 1, week)]) {
          gap++;
        }
        if (gap < shortest) {
          shortest = gap;
          shortestDay = d;
        }
      }
      if (w.leadTime().compareTo(Duration.ofMinutes(shortest)) >= 0) {
        String day =
            shortestDay.name().substring(0, 1)
                + shortestDay.name().substring(1).toLowerCase(Locale.ROOT);
        problem(
            "windows." + w.name() + ".leadTime",
            durationText(w.leadTime())
                + " is not shorter than the off-hours before the window ("
                + durationText(Duration.ofMinutes(shortest))
                + " before "
                + day
                + " "
                + Window.hhmm(w.startMinute())
                + ")");
      }
    }
  }

  /** Two windows may not be in force at the same minute of the week. */
  private void overlaps(List<Window> windows) {
    int week = 7 * 1440;
    int[] owner = new int[week];
    java.util.Arrays.fill(owner, -1);
    var reported = new TreeSet<String>();
    for (int i = 0; i < windows.size(); i++) {
      Window w = windows.get(i);
      for (DayOfWeek d : w.days()) {
        int base = (d.getValue() - 1) * 1440;
        int length =
            w.crossesMidnight()
                ? 1440 - w.startMinute() + w.endMinute()
                : w.endMinute() - w.startMinute();
        for (int k = 0; k < length; k++) {
          int minute = (base + w.startMinute() + k) % week;
          int other = owner[minute];
          if (other >= 0 && other != i) {
            String key = other + "/" + i;
            if (reported.add(key)) {
              Window o = windows.get(other);
              DayOfWeek at = DayOfWeek.of(minute / 1440 + 1);
              problem(
                  "windows." + w.name(),
                  "overlaps window '"
                      + o.name()
                      + "' ("
                      + o.hours()
                      + ") on "
                      + at.name().substring(0, 1)
                      + at.name().substring(1).toLowerCase(Locale.ROOT)
                      + " at "
                      + Window.hhmm(minute % 1440));
            }
          } else {
            owner[minute] = i;
          }
        }
      }
    }
  }

  private Set<LocalDate> holidays(JsonNode node) {
    var out = new LinkedHashSet<LocalDate>();
    for (int i = 0; node != null && node.isArray() && i < node.size(); i++) {
      String t = node.get(i).asText();
      try {
        out.add(LocalDate.parse(t));
      } catch (DateTimeParseException e) {
        problem("holidays[" + i + "]", "'" + t + "' is not a date (YYYY-MM-DD)");
      }
    }
    return out;
  }

  private List<NodePoolRule> nodePools(JsonNode node, Set<String> windowNames) {
    var out = new ArrayList<NodePoolRule>();
    var ruleNames = new LinkedHashSet<String>();
    for (int i = 0; node != null && node.isArray() && i < node.size(); i++) {
      JsonNode r = node.get(i);
      String path = "nodePools[" + i + "]";
      String name = ruleName(r, path, ruleNames);
      NodePoolSelector selector = nodePoolSelector(r.get("selector"), path + ".selector");
      var settings = new LinkedHashMap<String, NodePoolSetting>();
      JsonNode ws = r.get("windows");
      for (var it = ws == null ? null : ws.fields(); it != null && it.hasNext(); ) {
        var e = it.next();
        String wpath = path + ".windows." + e.getKey();
        if (!windowNames.contains(e.getKey())) {
          problem(wpath, unknownWindow(e.getKey(), windowNames));
        } else {
          settings.put(e.getKey(), nodePoolSetting(e.getValue(), wpath));
        }
      }
      if (name != null && selector != null) {
        out.add(new NodePoolRule(name, selector, Map.copyOf(settings)));
      }
    }
    return out;
  }

  private NodePoolSelector nodePoolSelector(JsonNode node, String path) {
    if (node == null || !node.isObject()) {
      return null;
    }
    Set<String> names = stringSet(node.get("names"));
    Map<String, String> labels = labels(node.get("labels"));
    if (names.isEmpty() && labels.isEmpty()) {
      problem(path, "selects every NodePool; name them or give labels");
      return null;
    }
    return new NodePoolSelector(names, labels);
  }

  private NodePoolSetting nodePoolSetting(JsonNode node, String path) {
    var budgets = new ArrayList<Budget>();
    JsonNode bs = node.path("budgets");
    for (int i = 0; bs.isArray() && i < bs.size(); i++) {
      Budget b = budget(bs.get(i), path + ".budgets[" + i + "]");
      if (b != null) {
        budgets.add(b);
      }
    }
    return new NodePoolSetting(List.copyOf(budgets), text(node, "consolidateAfter"));
  }

  private Budget budget(JsonNode node, String path) {
    String nodes = node.path("nodes").asText().trim();
    Matcher m = NODES.matcher(nodes);
    if (!m.matches()) {
      return null;
    }
    if (!m.group(2).isEmpty() && Long.parseLong(m.group(1)) > 100) {
      problem(path + ".nodes", "'" + nodes + "' is outside 0-100%");
      return null;
    }
    var reasons = new ArrayList<String>();
    node.path("reasons")
        .forEach(
            r -> {
              if (!reasons.contains(r.asText())) {
                reasons.add(r.asText());
              }
            });
    return new Budget(nodes, List.copyOf(reasons));
  }

  private List<WorkloadRule> workloads(JsonNode node, Set<String> windowNames) {
    var out = new ArrayList<WorkloadRule>();
    var ruleNames = new LinkedHashSet<String>();
    for (int i = 0; node != null && node.isArray() && i < node.size(); i++) {
      JsonNode r = node.get(i);
      String path = "workloads[" + i + "]";
      String name = ruleName(r, path, ruleNames);
      WorkloadSelector selector = workloadSelector(r.get("selector"), path + ".selector");
      Set<WorkloadKind> kinds = EnumSet.allOf(WorkloadKind.class);
      if (r.path("kinds").isArray()) {
        kinds = EnumSet.noneOf(WorkloadKind.class);
        for (JsonNode k : r.get("kinds")) {
          WorkloadKind.byKind(k.asText()).ifPresent(kinds::add);
        }
      }
      var replicas = new LinkedHashMap<String, Integer>();
      JsonNode rs = r.get("replicas");
      for (var it = rs == null ? null : rs.fields(); it != null && it.hasNext(); ) {
        var e = it.next();
        if (!windowNames.contains(e.getKey())) {
          problem(path + ".replicas." + e.getKey(), unknownWindow(e.getKey(), windowNames));
        } else {
          replicas.put(e.getKey(), e.getValue().asInt());
        }
      }
      if (name != null && selector != null) {
        out.add(new WorkloadRule(name, selector, Set.copyOf(kinds), Map.copyOf(replicas)));
      }
    }
    return out;
  }

  private WorkloadSelector workloadSelector(JsonNode node, String path) {
    if (node == null || !node.isObject()) {
      return null;
    }
    Set<String> namespaces = stringSet(node.get("namespaces"));
    Map<String, String> labels = labels(node.get("labels"));
    String annotation = text(node, "annotation");
    if (annotation == null && namespaces.isEmpty() && labels.isEmpty()) {
      problem(
          path, "selects every workload in the cluster; name namespaces, labels or an annotation");
      return null;
    }
    return new WorkloadSelector(namespaces, labels, annotation);
  }

  private String ruleName(JsonNode r, String path, Set<String> seen) {
    String name = text(r, "name");
    if (name != null && !seen.add(name)) {
      problem(path + ".name", "'" + name + "' is used by another rule");
    }
    return name;
  }

  private static Set<String> stringSet(JsonNode node) {
    var out = new LinkedHashSet<String>();
    if (node != null && node.isArray()) {
      node.forEach(n -> out.add(n.asText()));
    }
    return out;
  }

  private static Map<String, String> labels(JsonNode node) {
    var out = new LinkedHashMap<String, String>();
    if (node != null && node.isObject()) {
      node.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    }
    return out;
  }

  /** A scalar field's trimmed text; null when absent or not a scalar (the schema says why). */
  private static String text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    if (v == null || !v.isValueNode() || v.isNull() || v.asText().isBlank()) {
      return null;
    }
    return v.asText().trim();
  }

  /** "1h30m", "10m", "45s": the shortest Go-style text of a duration. */
  public static String durationText(Duration d) {
    long h = d.toHours();
    int m = d.toMinutesPart();
    int s = d.toSecondsPart();
    String out = (h > 0 ? h + "h" : "") + (m > 0 ? m + "m" : "") + (s > 0 ? s + "s" : "");
    return out.isEmpty() ? "0m" : out;
  }

  /** "1h30m" style durations (hours, minutes, seconds). */
  public static Duration parseGoDuration(String text) {
    try {
      return io.gpufleet.core.time.Durations.parse(text);
    } catch (IllegalArgumentException e) {
      // the schema has reported the text (with its path); the semantic checks go on without it
      return Duration.ZERO;
    }
  }

  private static String unknownWindow(String name, Set<String> known) {
    return "unknown window '" + name + "' (defined: " + String.join(", ", known) + ")";
  }
}

package io.gpufleet.schedule.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.schedule.policy.Policy.NodePoolRule;
import io.gpufleet.schedule.policy.Policy.Window;
import io.gpufleet.schedule.policy.Policy.WorkloadRule;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads and validates a policy document (YAML or JSON). Every problem is collected with its path,
 * so one run shows all of them; nothing is returned unless the whole document is valid. The
 * top-level fields are read here, the sections by {@link WindowSection} (checked against each other
 * by {@link WindowChecks}), {@link NodePoolSection} and {@link WorkloadSection}, all adding to one
 * {@link Problems} list.
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
  private final Problems problems = new Problems();

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
    parser.problems.all().stream()
        .filter(p -> !placed.contains(p.substring(0, p.indexOf(": "))))
        .forEach(all::add);
    throw new PolicyException(source, all);
  }

  private Policy policy(JsonNode root) {
    ZoneId zone = zone(PolicyFields.text(root, "timeZone"));
    String defaultWindow = PolicyFields.text(root, "defaultWindow");
    List<Window> windows = new WindowSection(problems).windows(root.get("windows"));
    if (defaultWindow != null && windows.stream().anyMatch(w -> w.name().equals(defaultWindow))) {
      problems.add(
          "windows." + defaultWindow,
          "the default window has no hours: it is in force whenever no other window is");
    }
    var checks = new WindowChecks(problems);
    checks.overlaps(windows);
    checks.leadTimes(windows);
    Set<String> windowNames = new LinkedHashSet<>();
    windows.forEach(w -> windowNames.add(w.name()));
    if (defaultWindow != null) {
      windowNames.add(defaultWindow);
    }
    Set<LocalDate> holidays = holidays(root.get("holidays"));
    String exclude = PolicyFields.text(root, "excludeAnnotation");
    String graceText = PolicyFields.text(root, "gracePeriod");
    Duration grace = graceText == null ? Policy.DEFAULT_GRACE_PERIOD : parseGoDuration(graceText);
    List<NodePoolRule> pools =
        new NodePoolSection(problems).nodePools(root.get("nodePools"), windowNames);
    List<WorkloadRule> workloads =
        new WorkloadSection(problems).workloads(root.get("workloads"), windowNames);
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
      problems.add("timeZone", "'" + id + "' is not an IANA time zone (e.g. Europe/Berlin, UTC)");
      return null;
    }
    try {
      return ZoneId.of(id);
    } catch (DateTimeException e) {
      problems.add(
          "timeZone", "unknown time zone '" + id + "' (use an IANA name like Europe/Berlin)");
      return null;
    }
  }

  private Set<LocalDate> holidays(JsonNode node) {
    var out = new LinkedHashSet<LocalDate>();
    for (int i = 0; node != null && node.isArray() && i < node.size(); i++) {
      String t = node.get(i).asText();
      try {
        out.add(LocalDate.parse(t));
      } catch (DateTimeParseException e) {
        problems.add("holidays[" + i + "]", "'" + t + "' is not a date (YYYY-MM-DD)");
      }
    }
    return out;
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
}

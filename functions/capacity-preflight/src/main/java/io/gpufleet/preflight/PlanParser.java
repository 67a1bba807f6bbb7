package io.gpufleet.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.Regions;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads a plan from YAML or JSON and validates all of it before any AWS call; every problem is
 * reported at once, each with its path ("entries[1].count: must be at least 1, got 0").
 *
 * <pre>
 * name: llm-training
 * regions: [us-east-1, us-west-2]     # or: all
 * entries:
 *   - name: trainers
 *     instanceTypes: [p5.48xlarge, p5e.48xlarge]   # any one of them, first preferred
 *     count: 4
 *     capacityType: spot                           # or on-demand
 *     zones: [us-east-1a]                          # optional
 * </pre>
 */
public final class PlanParser {
  private static final Pattern ZONE = Pattern.compile("([a-z]{2}(-[a-z]+)+-\\d)([a-z])");

  private PlanParser() {}

  /** Parses YAML (JSON is YAML too); {@code source} names where it came from in messages. */
  public static Plan parse(String text, String source) {
    if (text == null || text.isBlank()) {
      throw new ConfigException("plan " + source + " is empty");
    }
    JsonNode root;
    try {
      root =
          text.stripLeading().startsWith("{")
              ? Json.MAPPER.readTree(text)
              : Yaml.MAPPER.readTree(text);
    } catch (IOException e) {
      String msg =
          e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
      throw new ConfigException("plan " + source + " is not valid YAML or JSON: " + msg);
    }
    return parse(root, source);
  }

  /**
   * The structure is checked by {@code schemas/preflight-plan.schema.json}; regions, zones and
   * instance types against the catalog here. Both report with the path, one message per place.
   */
  public static Plan parse(JsonNode root, String source) {
    if (root == null || !root.isObject()) {
      throw new ConfigException("plan " + source + " must be a mapping with 'entries'");
    }
    var errors = new ArrayList<String>(PlanSchema.problems(root));
    var semantic = new ArrayList<String>();
    List<String> regions = new ArrayList<>();
    JsonNode r = root.get("regions");
    boolean all = r == null || r.isNull() || r.isTextual();
    for (int i = 0; r != null && r.isArray() && i < r.size(); i++) {
      String region = r.get(i).asText("").trim();
      if (!Regions.known(region)) {
        semantic.add("regions[" + i + "]: unknown region '" + region + "'");
      } else if (!regions.contains(region)) {
        regions.add(region);
      }
    }
    var entries = new ArrayList<PlanEntry>();
    JsonNode list = root.path("entries");
    for (int i = 0; list.isArray() && i < list.size(); i++) {
      var entry = entry(list.get(i), "entries[" + i + "]", semantic);
      if (entry != null) {
        entries.add(entry);
      }
    }
    Set<String> placed = new HashSet<>();
    errors.forEach(e -> placed.add(e.substring(0, e.indexOf(": "))));
    semantic.stream()
        .filter(e -> !placed.contains(e.substring(0, e.indexOf(": "))))
        .forEach(errors::add);
    if (!errors.isEmpty()) {
      throw new ConfigException(
          "plan "
              + source
              + " is invalid ("
              + errors.size()
              + (errors.size() == 1 ? " problem" : " problems")
              + "):\n  - "
              + String.join("\n  - ", errors));
    }
    return new Plan(root.path("name").asText("plan"), entries, regions, all);
  }

  private static PlanEntry entry(JsonNode e, String path, List<String> errors) {
    if (!e.isObject()) {
      return null;
    }
    var types = new ArrayList<String>();
    String typesField = null;
    for (String f : List.of("instanceType", "instanceTypes", "anyOf")) {
      JsonNode v = e.get(f);
      if (v != null && typesField == null) {
        typesField = f;
        (v.isArray() ? v : List.of(v)).forEach(t -> types.add(t.asText("").trim()));
      }
    }
    int before = errors.size();
    for (int j = 0; j < types.size(); j++) {
      String t = types.get(j);
      String where = path + "." + typesField + (types.size() > 1 ? "[" + j + "]" : "");
      if (!InstanceCatalog.wellFormed(t)) {
        errors.add(where + ": '" + t + "' is not an instance type name (like p5.48xlarge)");
      } else if (InstanceCatalog.find(t).isEmpty()) {
        errors.add(where + ": unknown instance type '" + t + "'" + suggestion(t));
      }
    }
    var zones = new ArrayList<String>();
    JsonNode z = e.path("zones");
    for (int j = 0; z.isArray() && j < z.size(); j++) {
      String zone = z.get(j).asText("").trim();
      var m = ZONE.matcher(zone);
      if (m.matches() && !Regions.known(m.group(1))) {
        errors.add(
            path
                + ".zones["
                + j
                + "]: '"
                + zone
                + "' is not an availability zone (like us-east-1a)");
      } else {
        zones.add(zone);
      }
    }
    CapacityType capacity = CapacityType.parse(e.path("capacityType").asText(null)).orElse(null);
    if (errors.size() > before || types.isEmpty() || capacity == null) {
      return null;
    }
    String name = e.path("name").asText(String.join("|", types));
    return new PlanEntry(name, types, e.path("count").asInt(), capacity, zones);
  }

  /** The region of an availability zone name ("us-east-1" of "us-east-1a"). */
  public static String regionOfZone(String zone) {
    var m = ZONE.matcher(zone);
    return m.matches() ? m.group(1) : "";
  }

  private static String suggestion(String type) {
    String family = InstanceCatalog.family(type);
    var same =
        InstanceCatalog.all().stream()
            .filter(s -> s.family().equals(family))
            .map(s -> s.instanceType())
            .toList();
    if (!same.isEmpty()) {
      return " (known " + family + " sizes: " + String.join(", ", same) + ")";
    }
    var families = new TreeSet<String>();
    InstanceCatalog.all().forEach(s -> families.add(s.family()));
    return " (known accelerated families: " + String.join(", ", families) + ")";
  }
}

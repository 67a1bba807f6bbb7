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
  static final int MAX_COUNT = 10_000;
  private static final Set<String> TOP_FIELDS = Set.of("name", "regions", "entries");
  private static final Set<String> ENTRY_FIELDS =
      Set.of("name", "instanceType", "instanceTypes", "anyOf", "count", "capacityType", "zones");
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

  public static Plan parse(JsonNode root, String source) {
    var errors = new ArrayList<String>();
    if (root == null || !root.isObject()) {
      throw new ConfigException("plan " + source + " must be a mapping with 'entries'");
    }
    root.fieldNames()
        .forEachRemaining(
            f -> {
              if (!TOP_FIELDS.contains(f)) {
                errors.add("unknown field '" + f + "' (known: " + new TreeSet<>(TOP_FIELDS) + ")");
              }
            });
    String name = root.path("name").asText("plan");
    List<String> regions = new ArrayList<>();
    boolean all = false;
    JsonNode r = root.get("regions");
    if (r == null || r.isNull()) {
      all = true;
    } else if (r.isTextual() && r.asText().trim().equalsIgnoreCase("all")) {
      all = true;
    } else if (r.isArray()) {
      for (int i = 0; i < r.size(); i++) {
        String region = r.get(i).asText("").trim();
        if (!Regions.known(region)) {
          errors.add("regions[" + i + "]: unknown region '" + region + "'");
        } else if (!regions.contains(region)) {
          regions.add(region);
        }
      }
      if (r.isEmpty()) {
        errors.add("regions: empty list (name regions, or write 'regions: all')");
      }
    } else {
      errors.add("regions: must be a list of region codes or 'all'");
    }
    var entries = new ArrayList<PlanEntry>();
    JsonNode list = root.get("entries");
    if (list == null || list.isNull() || (list.isArray() && list.isEmpty())) {
      errors.add("entries: the plan is empty (at least one entry is needed)");
    } else if (!list.isArray()) {
      errors.add("entries: must be a list");
    } else {
      for (int i = 0; i < list.size(); i++) {
        var entry = entry(list.get(i), "entries[" + i + "]", errors);
        if (entry != null) {
          entries.add(entry);
        }
      }
    }
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
    return new Plan(name, entries, regions, all);
  }

  private static PlanEntry entry(JsonNode e, String path, List<String> errors) {
    if (e == null || !e.isObject()) {
      errors.add(path + ": must be a mapping");
      return null;
    }
    int before = errors.size();
    e.fieldNames()
        .forEachRemaining(
            f -> {
              if (!ENTRY_FIELDS.contains(f)) {
                errors.add(
                    path
                        + ": unknown field '"
                        + f
                        + "' (known: "
                        + new TreeSet<>(ENTRY_FIELDS)
                        + ")");
              }
            });
    var types = new ArrayList<String>();
    String typesField = null;
    for (String f : List.of("instanceType", "instanceTypes", "anyOf")) {
      if (e.has(f)) {
        if (typesField != null) {
          errors.add(path + ": give either " + typesField + " or " + f + ", not both");
        }
        typesField = f;
        JsonNode v = e.get(f);
        if (v.isArray()) {
          for (int j = 0; j < v.size(); j++) {
            types.add(v.get(j).asText("").trim());
          }
        } else {
          types.add(v.asText("").trim());
        }
      }
    }
    if (typesField == null || types.isEmpty()) {
      errors.add(path + ": instanceType (or instanceTypes: [..], any one of them) is required");
    }
    for (int j = 0; j < types.size(); j++) {
      String t = types.get(j);
      String where = path + "." + typesField + (types.size() > 1 ? "[" + j + "]" : "");
      if (!InstanceCatalog.wellFormed(t)) {
        errors.add(where + ": '" + t + "' is not an instance type name (like p5.48xlarge)");
      } else if (InstanceCatalog.find(t).isEmpty()) {
        errors.add(where + ": unknown instance type '" + t + "'" + suggestion(t));
      }
    }
    int count = 0;
    JsonNode c = e.get("count");
    if (c == null || c.isNull()) {
      errors.add(path + ".count: is required");
    } else if (!c.canConvertToInt() || !(c.isIntegralNumber() || c.asText().matches("-?\\d+"))) {
      errors.add(path + ".count: must be a whole number, got '" + c.asText() + "'");
    } else {
      count = c.asInt();
      if (count <= 0) {
        errors.add(path + ".count: must be at least 1, got " + count);
      } else if (count > MAX_COUNT) {
        errors.add(path + ".count: " + count + " is more than " + MAX_COUNT);
      }
    }
    CapacityType capacity = null;
    JsonNode ct = e.get("capacityType");
    if (ct == null || ct.isNull()) {
      errors.add(path + ".capacityType: is required (spot or on-demand)");
    } else {
      capacity = CapacityType.parse(ct.asText()).orElse(null);
      if (capacity == null) {
        errors.add(path + ".capacityType: '" + ct.asText() + "' is not spot or on-demand");
      }
    }
    var zones = new ArrayList<String>();
    JsonNode z = e.get("zones");
    if (z != null && !z.isNull()) {
      if (!z.isArray()) {
        errors.add(path + ".zones: must be a list of availability zones");
      } else {
        for (int j = 0; j < z.size(); j++) {
          String zone = z.get(j).asText("").trim();
          var m = ZONE.matcher(zone);
          if (!m.matches() || !Regions.known(m.group(1))) {
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
      }
    }
    if (errors.size() > before) {
      return null;
    }
    String name = e.path("name").asText(String.join("|", types));
    return new PlanEntry(name, types, count, capacity, zones);
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

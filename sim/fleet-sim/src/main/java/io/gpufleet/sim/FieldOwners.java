package io.gpufleet.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Server-side apply's field ownership for one object, as {@code metadata.managedFields} records it:
 * each field manager (per operation, Apply or Update, and subresource) owns the leaves it set — a
 * scalar, an atomic list (lists here are atomic, as Karpenter's budgets and the annotations'
 * values), or an empty map. Creating or updating an object gives the writer the fields it changed
 * (taking them from whoever had them); an apply claims the fields of its body, conflicting with
 * other owners of a field it sets to a different value unless forced; a field an applier gives up
 * and nobody else owns is removed from the object. Immutable: every operation returns a new value.
 */
record FieldOwners(List<Entry> entries) {

  /** One managedFields entry; {@code fields} are JSON pointers of owned leaves. */
  record Entry(
      String manager,
      String operation,
      String apiVersion,
      String subresource,
      Set<String> fields,
      Instant time) {
    boolean sameOwner(String m, String op, String sub) {
      return manager.equals(m)
          && operation.equals(op)
          && java.util.Objects.equals(subresource, sub);
    }

    boolean owns(String pointer) {
      return fields.stream().anyMatch(f -> overlaps(f, pointer));
    }

    /** How the API server names a manager in a conflict. */
    String display() {
      return operation.equals("Apply")
          ? "\"" + manager + "\""
          : "\"" + manager + "\" using " + apiVersion;
    }
  }

  /** A field another manager owns with a different value than an apply sets. */
  record Conflict(Entry owner, String pointer) {}

  static final FieldOwners NONE = new FieldOwners(List.of());

  /** The leaves of what managedFields tracks: everything but identity, status and bookkeeping. */
  static List<String> trackedLeaves(JsonNode object) {
    if (object == null || !object.isObject()) {
      return List.of();
    }
    ObjectNode tracked = ((ObjectNode) object).deepCopy();
    tracked.remove(List.of("apiVersion", "kind", "status"));
    ObjectNode meta = Json.MAPPER.createObjectNode();
    for (String kept : List.of("labels", "annotations", "finalizers", "ownerReferences")) {
      if (object.path("metadata").has(kept)) {
        meta.set(kept, object.path("metadata").get(kept));
      }
    }
    tracked.remove("metadata");
    if (!meta.isEmpty()) {
      tracked.set("metadata", meta);
    }
    return tracked.isEmpty() ? List.of() : ObjectStore.leaves(tracked, "");
  }

  static boolean overlaps(String a, String b) {
    return a.equals(b) || b.startsWith(a + "/") || a.startsWith(b + "/");
  }

  /**
   * A create, update, merge patch or scale by {@code manager}: the leaves whose value changed go to
   * it (from any other owner), leaves that disappeared leave every owner.
   */
  FieldOwners updated(
      String manager,
      String apiVersion,
      String subresource,
      JsonNode before,
      JsonNode after,
      Instant now) {
    var changed = new TreeSet<String>();
    for (String p : trackedLeaves(after)) {
      if (before == null || !before.at(p).equals(after.at(p))) {
        changed.add(p);
      }
    }
    var present = new TreeSet<>(trackedLeaves(after));
    var out = new ArrayList<Entry>();
    Entry mine = null;
    for (Entry e : entries) {
      var kept = new TreeSet<String>();
      for (String f : e.fields()) {
        boolean stillThere = present.stream().anyMatch(p -> overlaps(p, f));
        boolean taken = changed.stream().anyMatch(c -> overlaps(c, f));
        if (stillThere && !taken) {
          kept.add(f);
        }
      }
      if (e.sameOwner(manager, "Update", subresource)) {
        mine = e;
        continue;
      }
      out.add(kept.equals(e.fields()) ? e : withFields(e, kept, e.time()));
    }
    if (!changed.isEmpty() || mine != null) {
      var fields = new TreeSet<String>(changed);
      if (mine != null) {
        mine.fields().stream()
            .filter(f -> present.stream().anyMatch(p -> overlaps(p, f)))
            .filter(f -> changed.stream().noneMatch(c -> overlaps(c, f)))
            .forEach(fields::add);
      }
      if (!fields.isEmpty()) {
        Instant time = mine != null && changed.isEmpty() ? mine.time() : now;
        out.add(new Entry(manager, "Update", apiVersion, subresource, fields, time));
      }
    }
    return new FieldOwners(List.copyOf(out));
  }

  /** The fields an apply of {@code claim} by {@code manager} would take from others, unforced. */
  List<Conflict> conflicts(String manager, JsonNode claim, JsonNode current) {
    var out = new ArrayList<Conflict>();
    for (String p : trackedLeaves(claim)) {
      if (claim.at(p).equals(current.at(p))) {
        continue; // the same value: shared ownership, never a conflict
      }
      for (Entry e : entries) {
        if (!e.sameOwner(manager, "Apply", null) && e.owns(p)) {
          out.add(new Conflict(e, p));
        }
      }
    }
    return out;
  }

  /**
   * The owners after {@code manager} applied {@code claim} (with force: conflicting fields taken
   * from their owners).
   */
  FieldOwners applied(
      String manager, String apiVersion, JsonNode claim, JsonNode current, Instant now) {
    var claimed = new TreeSet<>(trackedLeaves(claim));
    var taken = new TreeSet<String>();
    for (String p : claimed) {
      if (!claim.at(p).equals(current.at(p))) {
        taken.add(p);
      }
    }
    var out = new ArrayList<Entry>();
    Entry mine = null;
    for (Entry e : entries) {
      if (e.sameOwner(manager, "Apply", null)) {
        mine = e;
        continue;
      }
      var kept = new TreeSet<String>();
      e.fields().stream()
          .filter(f -> taken.stream().noneMatch(t -> overlaps(t, f)))
          .forEach(kept::add);
      out.add(kept.equals(e.fields()) ? e : withFields(e, kept, e.time()));
    }
    if (!claimed.isEmpty()) {
      boolean unchanged = mine != null && mine.fields().equals(claimed) && taken.isEmpty();
      out.add(
          new Entry(manager, "Apply", apiVersion, null, claimed, unchanged ? mine.time() : now));
    }
    return new FieldOwners(List.copyOf(out.stream().filter(e -> !e.fields().isEmpty()).toList()));
  }

  /**
   * Leaves {@code manager} applied before and leaves out of {@code claim} that nobody else owns.
   */
  List<String> givenUp(String manager, JsonNode claim) {
    var claimed = trackedLeaves(claim);
    var out = new ArrayList<String>();
    for (Entry e : entries) {
      if (!e.sameOwner(manager, "Apply", null)) {
        continue;
      }
      for (String f : e.fields()) {
        boolean stillClaimed = claimed.stream().anyMatch(c -> overlaps(c, f));
        boolean ownedElsewhere = entries.stream().anyMatch(o -> o != e && o.owns(f));
        if (!stillClaimed && !ownedElsewhere) {
          out.add(f);
        }
      }
    }
    return out;
  }

  /** Equal owners and fields, whatever the timestamps (a no-op write changes nothing). */
  boolean sameAs(FieldOwners other) {
    if (entries.size() != other.entries.size()) {
      return false;
    }
    for (int i = 0; i < entries.size(); i++) {
      Entry a = entries.get(i);
      Entry b = other.entries.get(i);
      if (!a.sameOwner(b.manager(), b.operation(), b.subresource())
          || !a.fields().equals(b.fields())
          || !java.util.Objects.equals(a.apiVersion(), b.apiVersion())) {
        return false;
      }
    }
    return true;
  }

  /** {@code metadata.managedFields} as the API server renders it (FieldsV1). */
  ArrayNode render() {
    ArrayNode out = Json.MAPPER.createArrayNode();
    for (Entry e : entries) {
      ObjectNode m = out.addObject();
      m.put("manager", e.manager()).put("operation", e.operation());
      m.put("apiVersion", e.apiVersion());
      m.put("time", e.time().truncatedTo(ChronoUnit.SECONDS).toString());
      m.put("fieldsType", "FieldsV1");
      ObjectNode fields = m.putObject("fieldsV1");
      for (String pointer : e.fields()) {
        ObjectNode at = fields;
        for (String segment : pointer.substring(1).split("/")) {
          at = at.with("f:" + segment.replace("~1", "/").replace("~0", "~"));
        }
      }
      if (e.subresource() != null) {
        m.put("subresource", e.subresource());
      }
    }
    return out;
  }

  private static Entry withFields(Entry e, Set<String> fields, Instant time) {
    return new Entry(e.manager(), e.operation(), e.apiVersion(), e.subresource(), fields, time);
  }

  /** The 409 message of a refused apply, worded as the API server's. */
  static String conflictMessage(List<Conflict> conflicts) {
    if (conflicts.size() == 1) {
      return "Apply failed with 1 conflict: conflict with "
          + conflicts.get(0).owner().display()
          + ": "
          + path(conflicts.get(0).pointer());
    }
    var byManager = new java.util.TreeMap<String, List<String>>();
    for (Conflict c : conflicts) {
      byManager.computeIfAbsent(c.owner().display(), k -> new ArrayList<>()).add(path(c.pointer()));
    }
    var lines = new ArrayList<String>();
    byManager.forEach(
        (m, paths) -> {
          lines.add("conflicts with " + m);
          paths.forEach(p -> lines.add("- " + p));
        });
    return "Apply failed with " + conflicts.size() + " conflicts: " + String.join("\n", lines);
  }

  /** The Status details of that 409: one FieldManagerConflict cause per field. */
  static Map<String, Object> conflictDetails(List<Conflict> conflicts) {
    var causes = new ArrayList<Map<String, Object>>();
    for (Conflict c : conflicts) {
      var cause = new LinkedHashMap<String, Object>();
      cause.put("reason", "FieldManagerConflict");
      cause.put("message", "conflict with " + c.owner().display());
      cause.put("field", path(c.pointer()));
      causes.add(cause);
    }
    return Map.of("causes", causes);
  }

  /** A JSON pointer as a field path ({@code /spec/replicas} -> {@code .spec.replicas}). */
  static String path(String pointer) {
    var out = new StringBuilder();
    for (String segment : pointer.substring(1).split("/")) {
      out.append('.').append(segment.replace("~1", "/").replace("~0", "~"));
    }
    return out.toString();
  }
}

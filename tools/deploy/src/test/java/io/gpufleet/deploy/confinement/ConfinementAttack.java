package io.gpufleet.deploy.confinement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.deploy.confinement.ApiCalls.Caller;
import io.gpufleet.deploy.confinement.ApiCalls.Response;
import io.gpufleet.deploy.confinement.ConfinementSpec.Policy;
import io.gpufleet.deploy.confinement.SchemaWalk.Leaf;
import io.gpufleet.deploy.confinement.SchemaWalk.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The adversarial core: for one object, every leaf of its kind's published schema outside the
 * identity's owned fields is written (dry-run) first by an admin, to find a value the API server
 * accepts and that really changes the object (so the refusal that follows is the confinement's, not
 * the schema's), then by the identity, which must be refused. Status leaves go through the status
 * subresource when the main resource ignores them.
 */
final class ConfinementAttack {
  /**
   * Metadata the API server owns or the identity's own writes change anyway (managedFields), never
   * a confinement question: name/namespace/uid are immutable, resourceVersion is a precondition.
   */
  static final Set<String> SERVER_OWNED =
      Set.of(
          "apiVersion",
          "kind",
          "metadata.name",
          "metadata.namespace",
          "metadata.uid",
          "metadata.resourceVersion",
          "metadata.generation",
          "metadata.creationTimestamp",
          "metadata.deletionTimestamp",
          "metadata.deletionGracePeriodSeconds",
          "metadata.selfLink",
          "metadata.managedFields");

  /** An object to attack and the policy that confines it (null: RBAC alone). */
  record Target(
      String label, String path, String openApi, String schema, Policy policy, boolean status) {}

  /** What one attack found. */
  record Outcome(
      String label,
      int attempted,
      List<String> admitted,
      List<String> refused,
      List<String> unreachable,
      List<String> owned) {}

  private final ApiCalls api;
  private final Caller admin;

  ConfinementAttack(ApiCalls api, Caller admin) {
    this.api = api;
    this.admin = admin;
  }

  SchemaWalk schemaOf(Target t) {
    Response doc = api.get(admin, t.openApi());
    if (!doc.ok()) {
      throw new IllegalStateException("GET " + t.openApi() + ": " + doc.code() + " " + doc.body());
    }
    return new SchemaWalk(doc.json());
  }

  /** Every non-owned leaf of the target's schema, written as {@code attacker}. */
  Outcome fields(Target t, Caller attacker) {
    SchemaWalk walk = schemaOf(t);
    Response got = api.get(admin, t.path());
    if (!got.ok()) {
      throw new IllegalStateException("GET " + t.path() + ": " + got.code() + " " + got.body());
    }
    JsonNode original = got.json();
    int attempted = 0;
    var admitted = new ArrayList<String>();
    var refused = new ArrayList<String>();
    var unreachable = new ArrayList<String>();
    var owned = new ArrayList<String>();
    for (Leaf leaf : walk.leaves(t.schema(), SERVER_OWNED)) {
      if (owned(t.policy(), leaf, original)) {
        owned.add(leaf.path());
        continue;
      }
      Attempt found = effective(walk, t, original, leaf);
      if (found == null) {
        unreachable.add(leaf.path());
        continue;
      }
      attempted++;
      Response r = api.mergePatch(attacker, found.path(), found.patch(), true);
      if (r.ok() && changed(original, r.json(), found.pointer())) {
        admitted.add(leaf.path() + " = " + found.value() + " via " + found.path());
      } else {
        refused.add(leaf.path() + ": " + r.code() + " " + firstLine(r.message()));
      }
    }
    return new Outcome(t.label(), attempted, admitted, refused, unreachable, owned);
  }

  record Attempt(String path, JsonNode patch, String pointer, JsonNode value) {}

  /** The first candidate write an admin's dry run accepts and that changes the leaf. */
  private Attempt effective(SchemaWalk walk, Target t, JsonNode original, Leaf leaf) {
    for (JsonNode value : valuesFor(walk, original, leaf)) {
      var mutated = original.deepCopy();
      String pointer = apply(walk, t.policy(), (ObjectNode) mutated, leaf, value);
      if (pointer == null || !changed(original, mutated, pointer)) {
        continue;
      }
      JsonNode patch = diff(original, mutated);
      for (String path :
          t.status() && leaf.names().getFirst().equals("status")
              ? List.of(t.path(), t.path() + "/status")
              : List.of(t.path())) {
        Response r = api.mergePatch(admin, path, patch, true);
        if (r.ok() && changed(original, r.json(), pointer)) {
          return new Attempt(path, patch, pointer, value);
        }
      }
    }
    return null;
  }

  private List<JsonNode> valuesFor(SchemaWalk walk, JsonNode original, Leaf leaf) {
    Step last = leaf.steps().getLast();
    JsonNode schema = last.schema();
    if (last.name().equals(SchemaWalk.ITEM) || last.name().startsWith("{")) {
      var c = walk.candidates(schema, null);
      return c.isEmpty() ? List.of(walk.minimal(schema, 0)) : c;
    }
    JsonNode current = original.at(pointerOf(leaf));
    var c = walk.candidates(schema, current.isMissingNode() ? null : current);
    if (c.isEmpty()) {
      return List.of(walk.minimal(schema, 0));
    }
    return c;
  }

  private static String pointerOf(Leaf leaf) {
    var sb = new StringBuilder();
    for (Step s : leaf.steps()) {
      sb.append('/').append(s.name().equals(SchemaWalk.ITEM) ? "0" : escape(s.name()));
    }
    return sb.toString();
  }

  /** Sets the leaf to {@code value} in {@code obj}, creating what is missing; its JSON pointer. */
  static String apply(SchemaWalk walk, Policy policy, ObjectNode obj, Leaf leaf, JsonNode value) {
    JsonNode node = obj;
    var pointer = new StringBuilder();
    List<Step> steps = leaf.steps();
    for (int i = 0; i < steps.size(); i++) {
      Step s = steps.get(i);
      boolean last = i == steps.size() - 1;
      switch (s.name()) {
        case SchemaWalk.ITEM -> {
          if (!(node instanceof ArrayNode a)) {
            return null;
          }
          if (last) {
            a.add(value);
            pointer.append('/').append(a.size() - 1);
            return pointer.toString();
          }
          if (a.isEmpty()) {
            a.add(walk.minimal(s.schema(), 0));
          }
          node = a.get(0);
          pointer.append("/0");
        }
        case SchemaWalk.NEW_ENTRY, SchemaWalk.OLD_ENTRY -> {
          if (!(node instanceof ObjectNode o)) {
            return null;
          }
          String key = SchemaWalk.NEW_KEY;
          if (s.name().equals(SchemaWalk.OLD_ENTRY)) {
            key = null;
            for (var it = o.fieldNames(); it.hasNext(); ) {
              String k = it.next();
              if (!ownedKey(policy, leaf, k)) {
                key = k;
                break;
              }
            }
            if (key == null) {
              return null;
            }
          }
          o.set(key, value);
          pointer.append('/').append(escape(key));
          return pointer.toString();
        }
        default -> {
          if (!(node instanceof ObjectNode o)) {
            return null;
          }
          pointer.append('/').append(escape(s.name()));
          if (last) {
            o.set(s.name(), value);
            return pointer.toString();
          }
          JsonNode child = o.get(s.name());
          if (child == null || child.isNull()) {
            child = walk.minimal(s.schema(), 0);
            o.set(s.name(), child);
          }
          node = child;
        }
      }
    }
    return pointer.toString();
  }

  /** Whether the identity owns the leaf (so it is not attacked here). */
  static boolean owned(Policy policy, Leaf leaf, JsonNode original) {
    if (policy == null) {
      return false;
    }
    List<String> names = leaf.names();
    if (names.getFirst().equals("metadata")) {
      // labels/annotations: a new key is gpufleet.io/adversary, owned by nobody; an existing key is
      // chosen among the foreign ones
      return false;
    }
    if (policy.fields() == null) {
      return false;
    }
    JsonNode node = policy.fields();
    for (String n : names) {
      if (n.equals(SchemaWalk.ITEM) || n.startsWith("{")) {
        continue;
      }
      node = node.get(n);
      if (node == null) {
        return false;
      }
      if (node.isTextual()) {
        return PolicyRenderer.OWN.equals(node.asText());
      }
      if (node.path("rule").isTextual()) {
        return true;
      }
    }
    return false;
  }

  private static boolean ownedKey(Policy policy, Leaf leaf, String key) {
    if (policy == null || leaf.names().size() < 2 || !leaf.names().getFirst().equals("metadata")) {
      return false;
    }
    return switch (leaf.names().get(1)) {
      case "labels" -> policy.labels().contains(key);
      case "annotations" -> policy.annotations().contains(key);
      default -> false;
    };
  }

  static boolean changed(JsonNode before, JsonNode after, String pointer) {
    return !before.at(pointer).equals(after.at(pointer));
  }

  /** The JSON merge patch (RFC 7386) that turns {@code a} into {@code b}. */
  static JsonNode diff(JsonNode a, JsonNode b) {
    ObjectNode p = JsonNodeFactory.instance.objectNode();
    b.properties()
        .forEach(
            e -> {
              JsonNode old = a.get(e.getKey());
              JsonNode now = e.getValue();
              if (old == null) {
                p.set(e.getKey(), now);
              } else if (old.isObject() && now.isObject()) {
                JsonNode d = diff(old, now);
                if (!d.isEmpty()) {
                  p.set(e.getKey(), d);
                }
              } else if (!old.equals(now)) {
                p.set(e.getKey(), now);
              }
            });
    a.fieldNames()
        .forEachRemaining(
            k -> {
              if (!b.has(k)) {
                p.putNull(k);
              }
            });
    return p;
  }

  static String escape(String s) {
    return s.replace("~", "~0").replace("/", "~1");
  }

  static String firstLine(String s) {
    String line = s.lines().findFirst().orElse("");
    return line.length() > 160 ? line.substring(0, 160) + "..." : line;
  }
}

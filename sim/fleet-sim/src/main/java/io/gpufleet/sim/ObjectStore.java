package io.gpufleet.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.json.Yaml;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Karpenter NodePools, Deployments, StatefulSets, HPAs (autoscaling/v2) and KEDA ScaledObjects for
 * the simulated API server, with what the CRUD mock lacks: server-side apply. The CRUD mock answers
 * {@code application/apply-patch+yaml} with 415, so apply is modelled here:
 *
 * <ul>
 *   <li>a {@code fieldManager} query parameter is required (400 without, as the API server does);
 *   <li>{@code metadata.uid} and {@code metadata.resourceVersion} in the body are preconditions
 *       (409 when they do not match);
 *   <li>the body is merged into the object (maps by key, lists replaced whole, as Karpenter's
 *       atomic budgets list);
 *   <li>field ownership is tracked per manager and rendered as {@code metadata.managedFields}
 *       ({@link FieldOwners}): creates, updates, merge patches and scales give the writer (its
 *       {@code fieldManager}, else its User-Agent's product) the fields it changed; an apply that
 *       sets a field another manager owns to a different value is refused with 409 naming that
 *       manager unless {@code force=true}, which takes the field over; a field a manager applied
 *       before and leaves out now is removed unless another manager owns it too;
 *   <li>a write that changes nothing (an apply of what is already there) is not written: the
 *       resourceVersion stays.
 * </ul>
 *
 * Also served: list (label selector, all namespaces), get, create, JSON merge patch, replace, and
 * the {@code /scale} subresource of Deployments and StatefulSets (what {@code kubectl scale} uses).
 * Every write request is recorded with its content type, query and body.
 */
final class ObjectStore {
  static final Pattern PATH =
      Pattern.compile(
          "/apis/(karpenter\\.sh/v1|apps/v1|autoscaling/v2|keda\\.sh/v1alpha1)"
              + "(/namespaces/([^/]+))?/(nodepools|deployments|statefulsets|horizontalpodautoscalers|scaledobjects)"
              + "(/([^/?]+))?(/scale)?(\\?(.*))?");

  /** One write request as the server received it. */
  record Write(String method, String path, String query, String contentType, String body) {}

  private final Map<String, ObjectNode> objects = new ConcurrentHashMap<>();
  private final Map<String, FieldOwners> owners = new ConcurrentHashMap<>();
  final List<Write> writes = new CopyOnWriteArrayList<>();
  private static final AtomicLong resourceVersion = new AtomicLong(500_000);

  boolean handles(String path) {
    return PATH.matcher(path).matches();
  }

  /**
   * Who writes when a request names no fieldManager: the User-Agent's product, as the API server.
   */
  static final String SEED_MANAGER = "gpufleet-sim";

  MockResponse handle(
      String method,
      String path,
      String contentType,
      String body,
      boolean admin,
      String userAgent) {
    Matcher m = PATH.matcher(path);
    if (!m.matches()) {
      return SimDispatcher.status(404, "NotFound", "no such path " + path);
    }
    String api = m.group(1);
    String ns = m.group(3);
    String plural = m.group(4);
    String name = m.group(6);
    boolean scale = m.group(7) != null;
    String query = m.group(9) == null ? "" : m.group(9);
    String manager = param(query, "fieldManager");
    if (manager == null || manager.isBlank()) {
      manager =
          userAgent == null || userAgent.isBlank() ? SEED_MANAGER : userAgent.split("/", 2)[0];
    }
    boolean namespaced = !plural.equals("nodepools");
    if (!namespaced && ns != null) {
      return SimDispatcher.status(404, "NotFound", "nodepools are cluster-scoped: " + path);
    }
    if (!method.equals("GET") && !admin) {
      writes.add(new Write(method, path, query, contentType, body));
    }
    try {
      if (name == null) {
        return switch (method) {
          case "GET" -> list(api, plural, ns, query);
          case "POST" ->
              namespaced && ns == null
                  ? notAllowed(method, path)
                  : create(api, plural, ns, body, manager);
          default -> notAllowed(method, path);
        };
      }
      String key = key(plural, ns, name);
      if (scale) {
        return plural.equals("deployments") || plural.equals("statefulsets")
            ? scale(method, key, plural, name, body, manager)
            : SimDispatcher.status(404, "NotFound", "no scale subresource for " + plural);
      }
      return switch (method) {
        case "GET" -> get(key, plural, name);
        case "PUT" -> replace(key, plural, name, body, manager);
        case "PATCH" -> patch(key, plural, name, contentType, query, body, manager);
        case "DELETE" -> delete(key, plural, name);
        default -> notAllowed(method, path);
      };
    } catch (IOException | RuntimeException e) {
      return SimDispatcher.status(400, "BadRequest", "unreadable body: " + e.getMessage());
    }
  }

  private static String key(String plural, String ns, String name) {
    return plural + "/" + (ns == null ? "" : ns) + "/" + name;
  }

  ObjectNode find(String plural, String ns, String name) {
    ObjectNode o = objects.get(key(plural, ns, name));
    return o == null ? null : o.deepCopy();
  }

  private MockResponse list(String api, String plural, String ns, String query) {
    String labelSelector = null;
    for (String param : query.split("&")) {
      int eq = param.indexOf('=');
      if (eq > 0 && param.substring(0, eq).equals("labelSelector")) {
        labelSelector = URLDecoder.decode(param.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    ObjectNode list = Json.MAPPER.createObjectNode();
    list.put("apiVersion", api).put("kind", kindOf(plural) + "List");
    list.putObject("metadata").put("resourceVersion", String.valueOf(resourceVersion.get()));
    ArrayNode items = list.putArray("items");
    var keys = new ArrayList<String>();
    String prefix = plural + "/" + (ns == null ? "" : ns + "/");
    for (String k : objects.keySet()) {
      if (k.startsWith(prefix)) {
        keys.add(k);
      }
    }
    keys.sort(null);
    for (String k : keys) {
      ObjectNode o = objects.get(k);
      if (o != null && labelsMatch(o, labelSelector)) {
        items.add(o);
      }
    }
    return ok(200, list);
  }

  private static boolean labelsMatch(ObjectNode o, String selector) {
    if (selector == null || selector.isBlank()) {
      return true;
    }
    JsonNode labels = o.path("metadata").path("labels");
    for (String term : selector.split(",")) {
      String[] kv = term.split("==?", 2);
      if (kv.length == 2 ? !kv[1].equals(labels.path(kv[0]).asText(null)) : !labels.has(kv[0])) {
        return false;
      }
    }
    return true;
  }

  private MockResponse get(String key, String plural, String name) {
    ObjectNode o = objects.get(key);
    return o == null ? notFound(plural, name) : ok(200, o);
  }

  private synchronized MockResponse create(
      String api, String plural, String ns, String body, String manager) throws IOException {
    ObjectNode o = (ObjectNode) Json.MAPPER.readTree(body);
    ObjectNode meta = o.with("metadata");
    String name = meta.path("name").asText(null);
    if (name == null || name.isEmpty()) {
      return SimDispatcher.status(422, "Invalid", "metadata.name is required");
    }
    if (ns != null) {
      meta.put("namespace", ns);
    }
    meta.put("uid", UUID.randomUUID().toString());
    if (!meta.hasNonNull("creationTimestamp")) {
      meta.put("creationTimestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    }
    meta.put("resourceVersion", String.valueOf(resourceVersion.incrementAndGet()));
    meta.put("generation", 1);
    o.put("apiVersion", api).put("kind", kindOf(plural));
    String key = key(plural, ns, name);
    if (objects.containsKey(key)) {
      return SimDispatcher.status(
          409, "AlreadyExists", resource(plural) + " \"" + name + "\" already exists");
    }
    var owned = FieldOwners.NONE.updated(manager, api, null, null, o, Instant.now());
    meta.set("managedFields", owned.render());
    objects.put(key, o);
    owners.put(key, owned);
    return ok(201, o);
  }

  private synchronized MockResponse replace(
      String key, String plural, String name, String body, String manager) throws IOException {
    ObjectNode o = (ObjectNode) Json.MAPPER.readTree(body);
    ObjectNode current = objects.get(key);
    if (current == null) {
      return notFound(plural, name);
    }
    String sent = o.path("metadata").path("resourceVersion").asText(null);
    if (sent != null && !sent.equals(current.path("metadata").path("resourceVersion").asText())) {
      return SimDispatcher.modified(resource(plural), name);
    }
    o.with("metadata").put("uid", current.path("metadata").path("uid").asText());
    return write(
        key,
        current,
        o,
        ownersOf(key).updated(manager, apiOf(current), null, current, o, Instant.now()));
  }

  private synchronized MockResponse patch(
      String key,
      String plural,
      String name,
      String contentType,
      String query,
      String body,
      String manager)
      throws IOException {
    ObjectNode current = objects.get(key);
    if (current == null) {
      return notFound(plural, name);
    }
    String type = contentType == null ? "" : contentType.split(";")[0].trim();
    if (type.equals("application/apply-patch+yaml")) {
      return apply(key, plural, name, current, query, body, manager);
    }
    if (!type.equals("application/merge-patch+json")) {
      return SimDispatcher.status(
          415,
          "UnsupportedMediaType",
          "the simulated API server takes merge patches and server-side apply here, not " + type);
    }
    JsonNode patch = Json.MAPPER.readTree(body);
    String sent = patch.path("metadata").path("resourceVersion").asText(null);
    if (sent != null && !sent.equals(current.path("metadata").path("resourceVersion").asText())) {
      return SimDispatcher.modified(resource(plural), name);
    }
    ObjectNode next = current.deepCopy();
    PodStore.merge(next, patch);
    return write(
        key,
        current,
        next,
        ownersOf(key).updated(manager, apiOf(current), null, current, next, Instant.now()));
  }

  private FieldOwners ownersOf(String key) {
    return owners.getOrDefault(key, FieldOwners.NONE);
  }

  private static String apiOf(JsonNode o) {
    return o.path("apiVersion").asText();
  }

  /**
   * Stores {@code next} with its owners, bumping resourceVersion and (for a spec change)
   * generation; as the API server, a write that changes nothing (managedFields timestamps aside) is
   * not written at all: the object and its resourceVersion stay as they were.
   */
  private MockResponse write(String key, ObjectNode current, ObjectNode next, FieldOwners owned) {
    ObjectNode before = current.deepCopy();
    before.with("metadata").remove(List.of("managedFields", "resourceVersion", "generation"));
    ObjectNode after = next.deepCopy();
    after.with("metadata").remove(List.of("managedFields", "resourceVersion", "generation"));
    if (before.equals(after) && owned.sameAs(ownersOf(key))) {
      return ok(200, current);
    }
    next.with("metadata").set("managedFields", owned.render());
    next.with("metadata").put("resourceVersion", String.valueOf(resourceVersion.incrementAndGet()));
    generation(current, next);
    objects.put(key, next);
    owners.put(key, owned);
    return ok(200, next);
  }

  private MockResponse apply(
      String key,
      String plural,
      String name,
      ObjectNode current,
      String query,
      String body,
      String requestManager)
      throws IOException {
    String manager = param(query, "fieldManager");
    if (manager == null || manager.isBlank()) {
      return SimDispatcher.status(
          400,
          "BadRequest",
          "PATCH requests that use server-side apply must provide a fieldManager");
    }
    // the API server takes YAML or JSON; clients (fabric8 included) send JSON, parsed directly
    JsonNode parsed =
        body.stripLeading().startsWith("{")
            ? Json.MAPPER.readTree(body)
            : Yaml.MAPPER.readTree(body);
    if (!(parsed instanceof ObjectNode applied)) {
      return SimDispatcher.status(400, "BadRequest", "apply body is not an object");
    }
    if (!Objects.equals(applied.path("kind").asText(null), current.path("kind").asText())
        || !Objects.equals(
            applied.path("apiVersion").asText(null), current.path("apiVersion").asText())
        || !name.equals(applied.path("metadata").path("name").asText(null))) {
      return SimDispatcher.status(
          400,
          "BadRequest",
          "apply body must name apiVersion, kind and metadata.name of "
              + current.path("kind").asText()
              + " "
              + name);
    }
    ObjectNode meta = (ObjectNode) applied.path("metadata");
    String uid = meta.path("uid").asText(null);
    if (uid != null && !uid.equals(current.path("metadata").path("uid").asText())) {
      return SimDispatcher.conflict(
          resource(plural),
          name,
          "Precondition failed: UID in precondition: "
              + uid
              + ", UID in object meta: "
              + current.path("metadata").path("uid").asText());
    }
    String rv = meta.path("resourceVersion").asText(null);
    if (rv != null && !rv.equals(current.path("metadata").path("resourceVersion").asText())) {
      return SimDispatcher.modified(resource(plural), name);
    }
    // the fields this apply claims: everything but identity and preconditions
    ObjectNode claim = applied.deepCopy();
    claim.remove(List.of("apiVersion", "kind"));
    ObjectNode claimMeta = (ObjectNode) claim.path("metadata");
    claimMeta.remove(List.of("name", "namespace", "uid", "resourceVersion"));
    if (claimMeta.isEmpty()) {
      claim.remove("metadata");
    }
    FieldOwners before = ownersOf(key);
    var conflicts = before.conflicts(manager, claim, current);
    if (!conflicts.isEmpty() && !"true".equals(param(query, "force"))) {
      return SimDispatcher.status(
          409,
          "Conflict",
          FieldOwners.conflictMessage(conflicts),
          FieldOwners.conflictDetails(conflicts));
    }
    ObjectNode next = current.deepCopy();
    for (String pointer : before.givenUp(manager, claim)) {
      remove(next, pointer);
    }
    mergeApply(next, claim);
    return write(
        key, current, next, before.applied(manager, apiOf(current), claim, current, Instant.now()));
  }

  /**
   * Objects merge key by key; lists and scalars replace (atomic), as for the fields applied here.
   */
  private static void mergeApply(ObjectNode target, JsonNode patch) {
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      var e = it.next();
      if (e.getValue().isObject() && target.get(e.getKey()) instanceof ObjectNode child) {
        mergeApply(child, e.getValue());
      } else {
        target.set(e.getKey(), e.getValue().deepCopy());
      }
    }
  }

  /** JSON pointers of every leaf (scalar or list) under an object. */
  static List<String> leaves(JsonNode node, String prefix) {
    var out = new ArrayList<String>();
    if (node.isObject() && !node.isEmpty()) {
      node.fields()
          .forEachRemaining(
              e ->
                  out.addAll(
                      leaves(
                          e.getValue(),
                          prefix + "/" + e.getKey().replace("~", "~0").replace("/", "~1"))));
    } else {
      out.add(prefix);
    }
    return out;
  }

  private static void remove(ObjectNode root, String pointer) {
    int slash = pointer.lastIndexOf('/');
    JsonNode parent = slash == 0 ? root : root.at(pointer.substring(0, slash));
    if (parent instanceof ObjectNode p) {
      p.remove(pointer.substring(slash + 1).replace("~1", "/").replace("~0", "~"));
    }
  }

  private synchronized MockResponse scale(
      String method, String key, String plural, String name, String body, String manager)
      throws IOException {
    ObjectNode current = objects.get(key);
    if (current == null) {
      return notFound(plural, name);
    }
    if (method.equals("PATCH") || method.equals("PUT")) {
      JsonNode patch = Json.MAPPER.readTree(body);
      JsonNode replicas = patch.path("spec").path("replicas");
      if (!replicas.canConvertToInt()) {
        return SimDispatcher.status(422, "Invalid", "spec.replicas is required");
      }
      // as the API server: the Scale's uid and resourceVersion, when sent, are preconditions
      String uid = patch.path("metadata").path("uid").asText(null);
      if (uid != null && !uid.equals(current.path("metadata").path("uid").asText())) {
        // the registry's answer: its storage layer's precondition error, wrapped in a 409
        return SimDispatcher.conflict(
            resource(plural),
            name,
            "StorageError: invalid object, Code: 4, Key: /registry/"
                + plural
                + "/"
                + current.path("metadata").path("namespace").asText()
                + "/"
                + name
                + ", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in"
                + " precondition: "
                + uid
                + ", UID in object meta: "
                + current.path("metadata").path("uid").asText());
      }
      String rv = patch.path("metadata").path("resourceVersion").asText(null);
      if (rv != null && !rv.equals(current.path("metadata").path("resourceVersion").asText())) {
        return SimDispatcher.modified(resource(plural), name);
      }
      ObjectNode next = current.deepCopy();
      next.with("spec").put("replicas", replicas.asInt());
      var owned =
          ownersOf(key).updated(manager, apiOf(current), "scale", current, next, Instant.now());
      write(key, current, next, owned);
      current = objects.get(key);
    } else if (!method.equals("GET")) {
      return notAllowed(method, key);
    }
    ObjectNode s = Json.MAPPER.createObjectNode();
    s.put("apiVersion", "autoscaling/v1").put("kind", "Scale");
    s.putObject("metadata")
        .put("name", name)
        .put("namespace", current.path("metadata").path("namespace").asText())
        .put("uid", current.path("metadata").path("uid").asText())
        .put("resourceVersion", current.path("metadata").path("resourceVersion").asText());
    s.putObject("spec").put("replicas", current.path("spec").path("replicas").asInt(1));
    s.putObject("status").put("replicas", current.path("spec").path("replicas").asInt(1));
    return ok(200, s);
  }

  /** As the API server: metadata.generation goes up by one when the spec changes. */
  private static void generation(ObjectNode before, ObjectNode after) {
    long g = before.path("metadata").path("generation").asLong(1);
    after
        .with("metadata")
        .put("generation", before.path("spec").equals(after.path("spec")) ? g : g + 1);
  }

  private synchronized MockResponse delete(String key, String plural, String name) {
    ObjectNode removed = objects.remove(key);
    owners.remove(key);
    return removed == null ? notFound(plural, name) : ok(200, removed);
  }

  private static String param(String query, String name) {
    for (String p : query.split("&")) {
      int eq = p.indexOf('=');
      if (eq > 0 && p.substring(0, eq).equals(name)) {
        return URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  static String kindOf(String plural) {
    return switch (plural) {
      case "nodepools" -> "NodePool";
      case "deployments" -> "Deployment";
      case "statefulsets" -> "StatefulSet";
      case "horizontalpodautoscalers" -> "HorizontalPodAutoscaler";
      case "scaledobjects" -> "ScaledObject";
      default -> throw new IllegalArgumentException(plural);
    };
  }

  static String pluralOf(String kind) {
    return switch (kind) {
      case "NodePool" -> "nodepools";
      case "Deployment" -> "deployments";
      case "StatefulSet" -> "statefulsets";
      case "HorizontalPodAutoscaler" -> "horizontalpodautoscalers";
      case "ScaledObject" -> "scaledobjects";
      default -> throw new IllegalArgumentException(kind);
    };
  }

  static String apiOf(String kind) {
    return switch (kind) {
      case "NodePool" -> "karpenter.sh/v1";
      case "Deployment", "StatefulSet" -> "apps/v1";
      case "HorizontalPodAutoscaler" -> "autoscaling/v2";
      case "ScaledObject" -> "keda.sh/v1alpha1";
      default -> throw new IllegalArgumentException(kind);
    };
  }

  private static MockResponse ok(int code, JsonNode body) {
    return new MockResponse().setResponseCode(code).setBody(body.toString());
  }

  private static MockResponse notFound(String plural, String name) {
    return SimDispatcher.notFound(resource(plural), name);
  }

  /** The resource as the API server names it in messages: plural, then group unless core. */
  static String resource(String plural) {
    String api = apiOf(kindOf(plural));
    int slash = api.indexOf('/');
    return slash < 0 ? plural : plural + "." + api.substring(0, slash);
  }

  private static MockResponse notAllowed(String method, String path) {
    return SimDispatcher.status(405, "MethodNotAllowed", method + " is not served for " + path);
  }
}

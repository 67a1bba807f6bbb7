package io.gpufleet.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Core/v1 pods or nodes for the simulated API server, kept in a hash map (the CRUD mock scans, and
 * serialises writes over, every object on every request, which does not scale to thousands of
 * objects). Serves create, get, list with field and label selectors, JSON merge patch (with
 * resourceVersion preconditions), update and delete.
 */
final class PodStore {
  private final Pattern all;
  private final Pattern named;
  private final String kind;
  private final String plural;
  private final boolean namespaced;

  private final Map<String, ObjectNode> pods = new ConcurrentHashMap<>();
  private static final AtomicLong resourceVersion = new AtomicLong(100_000);

  private PodStore(String kind, String plural, boolean namespaced) {
    this.kind = kind;
    this.plural = plural;
    this.namespaced = namespaced;
    this.all = Pattern.compile("/api/v1/" + plural + "(\\?(.*))?");
    this.named =
        namespaced
            ? Pattern.compile(
                "/api/v1/namespaces/([^/]+)/" + plural + "(/([^/?]+))?(/status)?(\\?(.*))?")
            : Pattern.compile("/api/v1/()" + plural + "(/([^/?]+))?(/status)?(\\?(.*))?");
  }

  static PodStore pods() {
    return new PodStore("Pod", "pods", true);
  }

  static PodStore nodes() {
    return new PodStore("Node", "nodes", false);
  }

  /** True when the path is one this store answers (evictions are handled elsewhere). */
  boolean handles(String path) {
    return all.matcher(path).matches() || named.matcher(path).matches();
  }

  MockResponse handle(String method, String path, String contentType, String body) {
    Matcher named = this.named.matcher(path);
    if (!namespaced && named.matches()) {
      return handleNamed(method, path, "", named.group(3), named.group(6), contentType, body);
    }
    Matcher allMatch = all.matcher(path);
    if (allMatch.matches()) {
      if ("GET".equals(method)) {
        return list(null, allMatch.group(2));
      }
      return namespaced || !"POST".equals(method)
          ? notAllowed(method, path)
          : guarded(() -> create("", body));
    }
    if (!named.matches()) {
      return SimDispatcher.status(404, "NotFound", "no such path " + path);
    }
    return handleNamed(
        method, path, named.group(1), named.group(3), named.group(6), contentType, body);
  }

  private interface Io {
    MockResponse run() throws IOException;
  }

  private static MockResponse guarded(Io io) {
    try {
      return io.run();
    } catch (IOException e) {
      return SimDispatcher.status(400, "BadRequest", "unreadable body: " + e.getMessage());
    }
  }

  private MockResponse handleNamed(
      String method,
      String path,
      String ns,
      String name,
      String query,
      String contentType,
      String body) {
    try {
      if (name == null) {
        return switch (method) {
          case "GET" -> list(ns, query);
          case "POST" -> create(ns, body);
          default -> notAllowed(method, path);
        };
      }
      return switch (method) {
        case "GET" -> get(ns, name);
        case "PUT" -> replace(ns, name, body);
        case "PATCH" -> patch(ns, name, contentType, body);
        case "DELETE" -> delete(ns, name);
        default -> notAllowed(method, path);
      };
    } catch (IOException e) {
      return SimDispatcher.status(400, "BadRequest", "unreadable body: " + e.getMessage());
    }
  }

  /** The pods on a node (any namespace when {@code ns} is null), as JSON. */
  List<ObjectNode> onNode(String ns, String nodeName) {
    return pods.values().stream()
        .filter(p -> nodeName.equals(p.path("spec").path("nodeName").asText(null)))
        .filter(p -> ns == null || ns.equals(p.path("metadata").path("namespace").asText()))
        .toList();
  }

  List<ObjectNode> inNamespace(String ns) {
    return pods.values().stream()
        .filter(p -> ns.equals(p.path("metadata").path("namespace").asText()))
        .toList();
  }

  ObjectNode find(String ns, String name) {
    return pods.get(ns + "/" + name);
  }

  private MockResponse get(String ns, String name) {
    ObjectNode pod = pods.get(ns + "/" + name);
    return pod == null ? notFound(name) : ok(200, pod);
  }

  private MockResponse list(String ns, String query) {
    Predicate<ObjectNode> filter =
        p -> ns == null || ns.equals(p.path("metadata").path("namespace").asText());
    if (query != null) {
      for (String param : query.split("&")) {
        int eq = param.indexOf('=');
        if (eq < 0) {
          continue;
        }
        String key = param.substring(0, eq);
        String value = URLDecoder.decode(param.substring(eq + 1), StandardCharsets.UTF_8);
        if (key.equals("fieldSelector")) {
          filter = filter.and(selector(value, PodStore::field));
        } else if (key.equals("labelSelector")) {
          filter =
              filter.and(
                  selector(
                      value, (p, k) -> p.path("metadata").path("labels").path(k).asText(null)));
        } else if (key.equals("watch") && value.equals("true")) {
          return SimDispatcher.status(
              400, "BadRequest", "the simulated API server does not serve pod watches");
        }
      }
    }
    ObjectNode list = Json.MAPPER.createObjectNode();
    list.put("apiVersion", "v1").put("kind", kind + "List");
    list.putObject("metadata").put("resourceVersion", String.valueOf(resourceVersion.get()));
    ArrayNode items = list.putArray("items");
    var sorted = new ArrayList<>(pods.entrySet());
    sorted.sort(Map.Entry.comparingByKey());
    for (var e : sorted) {
      if (filter.test(e.getValue())) {
        items.add(e.getValue());
      }
    }
    return ok(200, list);
  }

  private static String field(ObjectNode p, String key) {
    return switch (key) {
      case "spec.nodeName" -> p.path("spec").path("nodeName").asText(null);
      case "metadata.name" -> p.path("metadata").path("name").asText(null);
      case "metadata.namespace" -> p.path("metadata").path("namespace").asText(null);
      case "status.phase" -> p.path("status").path("phase").asText(null);
      default -> null;
    };
  }

  private static Predicate<ObjectNode> selector(
      String text, java.util.function.BiFunction<ObjectNode, String, String> value) {
    Predicate<ObjectNode> all = p -> true;
    for (String term : text.split(",")) {
      if (term.isBlank()) {
        continue;
      }
      boolean negate = term.contains("!=");
      String[] kv = term.split(negate ? "!=" : "==?", 2);
      String key = kv[0].trim();
      String wanted = kv.length > 1 ? kv[1].trim() : null;
      all =
          all.and(
              p -> {
                String actual = value.apply(p, key);
                if (wanted == null) {
                  return actual != null;
                }
                return negate != wanted.equals(actual);
              });
    }
    return all;
  }

  private MockResponse create(String ns, String body) throws IOException {
    ObjectNode pod = (ObjectNode) Json.MAPPER.readTree(body);
    ObjectNode meta = pod.with("metadata");
    String name = meta.path("name").asText(null);
    if (name == null || name.isEmpty()) {
      String prefix = meta.path("generateName").asText(null);
      if (prefix == null) {
        return SimDispatcher.status(422, "Invalid", "metadata.name or generateName is required");
      }
      name = prefix + UUID.randomUUID().toString().substring(0, 5);
      meta.put("name", name);
    }
    if (namespaced) {
      meta.put("namespace", ns);
    }
    if (!meta.hasNonNull("uid")) {
      meta.put("uid", UUID.randomUUID().toString());
    }
    if (!meta.hasNonNull("creationTimestamp")) {
      meta.put(
          "creationTimestamp",
          Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
    }
    meta.put("resourceVersion", String.valueOf(resourceVersion.incrementAndGet()));
    pod.put("apiVersion", "v1").put("kind", kind);
    if (pods.putIfAbsent(ns + "/" + name, pod) != null) {
      return SimDispatcher.status(
          409, "AlreadyExists", plural + " \"" + name + "\" already exists");
    }
    return ok(201, pod);
  }

  private MockResponse replace(String ns, String name, String body) throws IOException {
    ObjectNode pod = (ObjectNode) Json.MAPPER.readTree(body);
    synchronized (this) {
      ObjectNode current = pods.get(ns + "/" + name);
      if (current == null) {
        return notFound(name);
      }
      String sent = pod.path("metadata").path("resourceVersion").asText(null);
      if (sent != null && !sent.equals(current.path("metadata").path("resourceVersion").asText())) {
        return conflict(name);
      }
      pod.with("metadata")
          .put("resourceVersion", String.valueOf(resourceVersion.incrementAndGet()));
      pods.put(ns + "/" + name, pod);
      return ok(200, pod);
    }
  }

  private MockResponse patch(String ns, String name, String contentType, String body)
      throws IOException {
    if (contentType != null && contentType.contains("json-patch")) {
      return SimDispatcher.status(
          415, "UnsupportedMediaType", "the simulated API server takes merge patches for pods");
    }
    JsonNode patch = Json.MAPPER.readTree(body);
    synchronized (this) {
      ObjectNode current = pods.get(ns + "/" + name);
      if (current == null) {
        return notFound(name);
      }
      String sent = patch.path("metadata").path("resourceVersion").asText(null);
      if (sent != null && !sent.equals(current.path("metadata").path("resourceVersion").asText())) {
        return conflict(name);
      }
      ObjectNode next = current.deepCopy();
      merge(next, patch);
      next.with("metadata")
          .put("resourceVersion", String.valueOf(resourceVersion.incrementAndGet()));
      pods.put(ns + "/" + name, next);
      return ok(200, next);
    }
  }

  /** RFC 7386 JSON merge patch. */
  static void merge(ObjectNode target, JsonNode patch) {
    patch
        .fields()
        .forEachRemaining(
            e -> {
              JsonNode value = e.getValue();
              if (value.isNull()) {
                target.remove(e.getKey());
              } else if (value.isObject() && target.get(e.getKey()) instanceof ObjectNode child) {
                merge(child, value);
              } else {
                target.set(e.getKey(), value.deepCopy());
              }
            });
  }

  private MockResponse delete(String ns, String name) {
    ObjectNode removed = pods.remove(ns + "/" + name);
    return removed == null ? notFound(name) : ok(200, removed);
  }

  private static MockResponse ok(int code, JsonNode body) {
    return new MockResponse().setResponseCode(code).setBody(body.toString());
  }

  private MockResponse notFound(String name) {
    return SimDispatcher.notFound(plural, name);
  }

  private MockResponse conflict(String name) {
    return SimDispatcher.modified(plural, name);
  }

  private static MockResponse notAllowed(String method, String path) {
    return SimDispatcher.status(405, "MethodNotAllowed", method + " is not served for " + path);
  }
}

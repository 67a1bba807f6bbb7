package io.gpufleet.sim;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Core/v1 Events kept in a sorted map: create, get, list (one namespace or all). The CRUD mock
 * matches every stored object's attributes on every request, so hundreds of Events (one per object
 * a schedule run changes) made each create slower than the last.
 */
final class EventStore {
  static final Pattern PATH =
      Pattern.compile(
          "/(?:api/v1|apis/events\\.k8s\\.io/v1)/(namespaces/([^/]+)/)?events(/([^/?]+))?(\\?.*)?");

  private final Map<String, ObjectNode> events = new ConcurrentSkipListMap<>();
  private static final AtomicLong resourceVersion = new AtomicLong(900_000);

  boolean handles(String path) {
    return PATH.matcher(path).matches();
  }

  MockResponse handle(String method, String path, String body) {
    Matcher m = PATH.matcher(path);
    if (!m.matches()) {
      return SimDispatcher.status(404, "NotFound", "no such path " + path);
    }
    String ns = m.group(2);
    String name = m.group(4);
    try {
      if (name == null && method.equals("GET")) {
        return list(ns);
      }
      if (name == null && method.equals("POST") && ns != null) {
        return create(ns, body);
      }
      if (name != null && method.equals("GET") && ns != null) {
        ObjectNode e = events.get(ns + "/" + name);
        return e == null
            ? SimDispatcher.status(404, "NotFound", "events \"" + name + "\" not found")
            : new MockResponse().setResponseCode(200).setBody(e.toString());
      }
      return SimDispatcher.status(405, "MethodNotAllowed", method + " is not served for " + path);
    } catch (IOException | ClassCastException e) {
      return SimDispatcher.status(400, "BadRequest", "unreadable Event: " + e.getMessage());
    }
  }

  private MockResponse create(String ns, String body) throws IOException {
    ObjectNode e = (ObjectNode) Json.MAPPER.readTree(body);
    ObjectNode meta = e.with("metadata");
    String name = meta.path("name").asText(null);
    if (name == null || name.isEmpty()) {
      String prefix = meta.path("generateName").asText("event.");
      name = prefix + UUID.randomUUID().toString().substring(0, 8);
      meta.put("name", name);
    }
    meta.put("namespace", ns);
    meta.put("uid", UUID.randomUUID().toString());
    meta.put("resourceVersion", String.valueOf(resourceVersion.incrementAndGet()));
    meta.put("creationTimestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    // core/v1 and events.k8s.io/v1 Events are one resource of the API server, kept as written
    e.put("apiVersion", e.path("apiVersion").asText("v1")).put("kind", "Event");
    if (events.putIfAbsent(ns + "/" + name, e) != null) {
      return SimDispatcher.status(409, "AlreadyExists", "events \"" + name + "\" already exists");
    }
    return new MockResponse().setResponseCode(201).setBody(e.toString());
  }

  private MockResponse list(String ns) {
    ObjectNode list = Json.MAPPER.createObjectNode();
    list.put("apiVersion", "v1").put("kind", "EventList");
    list.putObject("metadata").put("resourceVersion", String.valueOf(resourceVersion.get()));
    ArrayNode items = list.putArray("items");
    events.forEach(
        (k, v) -> {
          if (ns == null || k.startsWith(ns + "/")) {
            items.add(v);
          }
        });
    return new MockResponse().setResponseCode(200).setBody(list.toString());
  }
}

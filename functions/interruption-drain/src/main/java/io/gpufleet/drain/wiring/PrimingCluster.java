package io.gpufleet.drain.wiring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LoopbackHttps;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The API server a priming drain runs against (behind {@link LoopbackHttps}, only while priming):
 * one GPU node of a Spot instance and its pods, answering the requests a real drain makes with the
 * shapes kube-apiserver gives — the node listing and GET, the merge patch guarded by
 * resourceVersion (409 when stale), the pod listing by {@code spec.nodeName}, the namespace's
 * PodDisruptionBudgets, evictions (a guarded pod's first eviction is refused with 429, as a budget
 * allowing no disruption refuses it, its retry accepted), evicted pods terminating for one listing
 * before they are gone, force deletes and Events. Any other request is answered 404 and recorded
 * ({@link #unexpected()}), so a test sees when the drain's path has grown beyond it.
 */
final class PrimingCluster implements LoopbackHttps.Handler {
  static final String NODE = "ip-10-0-0-1.ec2.internal";
  static final String INSTANCE = "i-0123456789abcdef0";
  static final String NAMESPACE = "gpufleet-priming";

  private final ObjectNode node;
  private final AtomicLong version = new AtomicLong(1);
  private final Map<String, ObjectNode> pods = new ConcurrentHashMap<>();
  private final Set<String> refusedOnce = ConcurrentHashMap.newKeySet();
  private final Set<String> guarded;
  private final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
  private final AtomicLong refusals = new AtomicLong();
  private final AtomicLong evictions = new AtomicLong();
  private final AtomicLong patches = new AtomicLong();

  /**
   * {@code podCount} ReplicaSet pods, the first {@code guardedCount} under a budget, a DaemonSet.
   */
  PrimingCluster(int podCount, int guardedCount) {
    this.node = node();
    var g = new java.util.HashSet<String>();
    for (int i = 0; i < podCount; i++) {
      String name = "work-" + i;
      boolean underBudget = i < guardedCount;
      if (underBudget) {
        g.add(name);
      }
      pods.put(name, pod(name, "ReplicaSet", underBudget ? "guarded" : "work"));
    }
    pods.put("node-agent", pod("node-agent", "DaemonSet", "agent"));
    this.guarded = Set.copyOf(g);
  }

  List<String> unexpected() {
    return List.copyOf(unexpected);
  }

  long refusals() {
    return refusals.get();
  }

  long evictions() {
    return evictions.get();
  }

  long patches() {
    return patches.get();
  }

  /** Pods still on the node besides the DaemonSet's. */
  long podsLeft() {
    return pods.keySet().stream().filter(n -> !n.equals("node-agent")).count();
  }

  @Override
  public LoopbackHttps.Response handle(LoopbackHttps.Request r) {
    String m = r.method();
    String p = r.path();
    String podsPath = "/api/v1/namespaces/" + NAMESPACE + "/pods/";
    if (m.equals("GET") && p.equals("/api/v1/nodes")) {
      return ok(list("NodeList", List.of(currentNode())));
    }
    if (p.equals("/api/v1/nodes/" + NODE)) {
      return switch (m) {
        case "GET" -> ok(currentNode());
        case "PATCH" -> patch(r.bodyText());
        default -> other(r);
      };
    }
    if (m.equals("GET") && (p.equals("/api/v1/pods") || p.equals(podsPath.replaceAll("/$", "")))) {
      return ok(list("PodList", listPods()));
    }
    if (m.equals("GET")
        && p.equals("/apis/policy/v1/namespaces/" + NAMESPACE + "/poddisruptionbudgets")) {
      return ok(list("PodDisruptionBudgetList", List.of(budget())));
    }
    if (m.equals("POST") && p.startsWith(podsPath) && p.endsWith("/eviction")) {
      return evict(p.substring(podsPath.length(), p.length() - "/eviction".length()));
    }
    if (m.equals("DELETE") && p.startsWith(podsPath)) {
      ObjectNode gone = pods.remove(p.substring(podsPath.length()));
      return gone == null ? status(404, "NotFound") : ok(gone);
    }
    if (m.equals("POST") && p.endsWith("/events")) {
      return new LoopbackHttps.Response(201, r.bodyText());
    }
    return other(r);
  }

  private LoopbackHttps.Response other(LoopbackHttps.Request r) {
    unexpected.add(r.method() + " " + r.path() + (r.query() == null ? "" : "?" + r.query()));
    return status(404, "NotFound");
  }

  private synchronized ObjectNode currentNode() {
    node.with("metadata").put("resourceVersion", String.valueOf(version.get()));
    return node.deepCopy();
  }

  /** A JSON merge patch (RFC 7386) guarded by resourceVersion, as the drain sends it. */
  private synchronized LoopbackHttps.Response patch(String body) {
    JsonNode change;
    try {
      change = Json.MAPPER.readTree(body);
    } catch (IOException e) {
      return status(400, "BadRequest");
    }
    JsonNode guard = change.path("metadata").path("resourceVersion");
    if (!guard.isMissingNode() && !guard.asText().equals(String.valueOf(version.get()))) {
      return status(409, "Conflict");
    }
    merge(node, change);
    ((ObjectNode) node.get("metadata")).put("resourceVersion", version.incrementAndGet());
    patches.incrementAndGet();
    return ok(currentNode());
  }

  private static void merge(ObjectNode target, JsonNode patch) {
    patch
        .fields()
        .forEachRemaining(
            e -> {
              if (e.getValue().isNull()) {
                target.remove(e.getKey());
              } else if (e.getValue().isObject()
                  && target.get(e.getKey()) instanceof ObjectNode o) {
                merge(o, e.getValue());
              } else {
                target.set(e.getKey(), e.getValue().deepCopy());
              }
            });
  }

  /**
   * The pods on the node; an evicted pod is listed once more as terminating (its deletion timestamp
   * set), then gone, so the drain's deletion watch goes round at least once.
   */
  private List<JsonNode> listPods() {
    var out = new ArrayList<JsonNode>();
    for (var e : pods.entrySet()) {
      ObjectNode pod = e.getValue();
      out.add(pod.deepCopy());
      if (pod.path("metadata").has("deletionTimestamp")) {
        pods.remove(e.getKey());
      }
    }
    return out;
  }

  private LoopbackHttps.Response evict(String name) {
    ObjectNode pod = pods.get(name);
    if (pod == null) {
      return status(404, "NotFound");
    }
    if (guarded.contains(name) && refusedOnce.add(name)) {
      refusals.incrementAndGet();
      return new LoopbackHttps.Response(
          429,
          "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
              + "\"message\":\"Cannot evict pod as it would violate the pod's disruption budget.\","
              + "\"reason\":\"TooManyRequests\",\"details\":{\"causes\":[{\"reason\":"
              + "\"DisruptionBudget\",\"message\":\"The disruption budget guarded needs 1 healthy"
              + " pods and has 1 currently\"}]},\"code\":429}");
    }
    pod.with("metadata").put("deletionTimestamp", "2026-01-01T00:00:00Z");
    evictions.incrementAndGet();
    return new LoopbackHttps.Response(
        201,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\","
            + "\"code\":201}");
  }

  private static LoopbackHttps.Response ok(JsonNode body) {
    try {
      return new LoopbackHttps.Response(200, Json.MAPPER.writeValueAsString(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static LoopbackHttps.Response status(int code, String reason) {
    return new LoopbackHttps.Response(
        code,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            + "\"reason\":\""
            + reason
            + "\",\"code\":"
            + code
            + "}");
  }

  private ObjectNode list(String kind, List<? extends JsonNode> items) {
    ObjectNode list = Json.MAPPER.createObjectNode();
    list.put("apiVersion", kind.startsWith("PodDisruption") ? "policy/v1" : "v1");
    list.put("kind", kind);
    list.putObject("metadata").put("resourceVersion", String.valueOf(version.get()));
    ArrayNode array = list.putArray("items");
    items.forEach(array::add);
    return list;
  }

  private static ObjectNode node() {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("apiVersion", "v1");
    n.put("kind", "Node");
    ObjectNode meta = n.putObject("metadata");
    meta.put("name", NODE);
    meta.put("uid", "00000000-0000-0000-0000-00000000000a");
    meta.put("resourceVersion", "1");
    ObjectNode labels = meta.putObject("labels");
    labels.put("kubernetes.io/hostname", NODE);
    labels.put("node.kubernetes.io/instance-type", "g6e.12xlarge");
    labels.put("topology.kubernetes.io/zone", "us-east-1a");
    labels.put("karpenter.sh/capacity-type", "spot");
    labels.put("karpenter.sh/nodepool", "gpu");
    meta.putObject("annotations");
    ObjectNode spec = n.putObject("spec");
    spec.put("providerID", "aws:///us-east-1a/" + INSTANCE);
    spec.putArray("taints")
        .addObject()
        .put("key", "nvidia.com/gpu")
        .put("value", "true")
        .put("effect", "NoSchedule");
    n.putObject("status")
        .putArray("conditions")
        .addObject()
        .put("type", "Ready")
        .put("status", "True");
    return n;
  }

  private static ObjectNode pod(String name, String ownerKind, String app) {
    ObjectNode p = Json.MAPPER.createObjectNode();
    p.put("apiVersion", "v1");
    p.put("kind", "Pod");
    ObjectNode meta = p.putObject("metadata");
    meta.put("name", name);
    meta.put("namespace", NAMESPACE);
    meta.put("uid", "uid-" + name);
    meta.put("resourceVersion", "1");
    meta.put("creationTimestamp", "2026-01-01T00:00:00Z");
    meta.putObject("labels").put("app", app);
    meta.putArray("ownerReferences")
        .addObject()
        .put("apiVersion", "apps/v1")
        .put("kind", ownerKind)
        .put("name", app)
        .put("uid", "uid-" + app)
        .put("controller", true)
        .put("blockOwnerDeletion", true);
    ObjectNode spec = p.putObject("spec");
    spec.put("nodeName", NODE);
    spec.put("priority", 0);
    spec.put("terminationGracePeriodSeconds", 30);
    spec.putArray("containers").addObject().put("name", "main").put("image", "work:1");
    p.putObject("status").put("phase", "Running");
    return p;
  }

  private static ObjectNode budget() {
    ObjectNode b = Json.MAPPER.createObjectNode();
    b.put("apiVersion", "policy/v1");
    b.put("kind", "PodDisruptionBudget");
    b.putObject("metadata").put("name", "guarded").put("namespace", NAMESPACE);
    ObjectNode spec = b.putObject("spec");
    spec.put("maxUnavailable", 1);
    spec.putObject("selector").putObject("matchLabels").put("app", "guarded");
    b.putObject("status")
        .put("currentHealthy", 2)
        .put("desiredHealthy", 1)
        .put("disruptionsAllowed", 1)
        .put("expectedPods", 2);
    return b;
  }
}

package io.gpufleet.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.gpufleet.core.json.Json;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Seeding, inspection and "somebody else" changes of the simulated cluster's NodePools,
 * Deployments, StatefulSets, HPAs and KEDA ScaledObjects (none of it subject to latency or faults,
 * none of it recorded as a client write), plus the writes clients made.
 */
public final class SimObjects {
  /** Creation time of seeded objects that do not name one. */
  public static final Instant SEEDED = Instant.parse("2025-01-01T00:00:00Z");

  private final SimDispatcher dispatcher;

  SimObjects(SimDispatcher dispatcher) {
    this.dispatcher = dispatcher;
  }

  /** One write a client sent (method, path with query, content type, body). */
  public record ObjectWrite(
      String method, String path, String query, String contentType, String body) {}

  public ObjectNode create(ObjectNode object) {
    String kind = object.path("kind").asText();
    String ns = object.path("metadata").path("namespace").asText(null);
    String path = collection(kind, ns);
    var response = dispatcher.internal(HttpMethod.POST, path, object.toString());
    String body = response.getBody().readUtf8();
    if (response.code() >= 300) {
      throw new IllegalStateException("seeding " + path + " failed: " + body);
    }
    return read(body);
  }

  public Optional<ObjectNode> get(String kind, String namespace, String name) {
    return Optional.ofNullable(
        dispatcher.objects.find(ObjectStore.pluralOf(kind), namespace, name));
  }

  public ObjectNode require(String kind, String namespace, String name) {
    return get(kind, namespace, name)
        .orElseThrow(
            () -> new IllegalStateException(kind + " " + namespace + "/" + name + " not found"));
  }

  /** Somebody else changes an object (a JSON merge patch, as kubectl patch/annotate do). */
  public ObjectNode patch(String kind, String namespace, String name, String mergePatch) {
    var response =
        dispatcher.internal(HttpMethod.PATCH, collection(kind, namespace) + "/" + name, mergePatch);
    String body = response.getBody().readUtf8();
    if (response.code() >= 300) {
      throw new IllegalStateException("patch failed: " + body);
    }
    return read(body);
  }

  /** Somebody runs {@code kubectl scale} (the scale subresource). */
  public void scale(String kind, String namespace, String name, int replicas) {
    var response =
        dispatcher.internal(
            HttpMethod.PATCH,
            collection(kind, namespace) + "/" + name + "/scale",
            "{\"spec\":{\"replicas\":" + replicas + "}}");
    if (response.code() >= 300) {
      throw new IllegalStateException("scale failed: " + response.getBody().readUtf8());
    }
  }

  public List<ObjectWrite> writes() {
    return dispatcher.objects.writes.stream()
        .map(w -> new ObjectWrite(w.method(), w.path(), w.query(), w.contentType(), w.body()))
        .toList();
  }

  public void clearWrites() {
    dispatcher.objects.writes.clear();
  }

  private static String collection(String kind, String namespace) {
    String api = "/apis/" + ObjectStore.apiOf(kind);
    String plural = ObjectStore.pluralOf(kind);
    return namespace == null || kind.equals("NodePool")
        ? api + "/" + plural
        : api + "/namespaces/" + namespace + "/" + plural;
  }

  private static ObjectNode read(String body) {
    try {
      return (ObjectNode) Json.MAPPER.readTree(body);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------- builders

  private static ObjectNode base(
      String kind, String namespace, String name, Map<String, String> labels) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("apiVersion", ObjectStore.apiOf(kind)).put("kind", kind);
    ObjectNode meta = o.putObject("metadata").put("name", name);
    if (namespace != null) {
      meta.put("namespace", namespace);
    }
    // an old object unless a builder says otherwise (the store stamps the wall clock otherwise)
    meta.put("creationTimestamp", SEEDED.toString());
    if (labels != null && !labels.isEmpty()) {
      ObjectNode l = meta.putObject("labels");
      labels.forEach(l::put);
    }
    return o;
  }

  /** A Karpenter v1 NodePool with a template, limits and the given disruption settings. */
  public static ObjectNode nodePool(
      String name, Map<String, String> labels, String budgetsJson, String consolidateAfter) {
    ObjectNode o = base("NodePool", null, name, labels);
    ObjectNode spec = o.putObject("spec");
    ObjectNode tmpl = spec.putObject("template").putObject("spec");
    tmpl.putObject("nodeClassRef")
        .put("group", "karpenter.k8s.aws")
        .put("kind", "EC2NodeClass")
        .put("name", "gpu");
    ArrayNode reqs = tmpl.putArray("requirements");
    reqs.addObject()
        .put("key", "karpenter.k8s.aws/instance-family")
        .put("operator", "In")
        .putArray("values")
        .add("p5")
        .add("g6e");
    tmpl.putArray("taints").addObject().put("key", "nvidia.com/gpu").put("effect", "NoSchedule");
    tmpl.put("expireAfter", "720h");
    spec.putObject("limits").put("nvidia.com/gpu", "64");
    ObjectNode d = spec.putObject("disruption");
    d.put("consolidationPolicy", "WhenEmptyOrUnderutilized");
    if (consolidateAfter != null) {
      d.put("consolidateAfter", consolidateAfter);
    }
    if (budgetsJson != null) {
      d.set("budgets", read("{\"b\":" + budgetsJson + "}").get("b"));
    }
    spec.put("weight", 10);
    return o;
  }

  public static ObjectNode deployment(
      String namespace, String name, int replicas, Map<String, String> labels, Instant created) {
    return workload("Deployment", namespace, name, replicas, labels, created);
  }

  public static ObjectNode statefulSet(
      String namespace, String name, int replicas, Map<String, String> labels, Instant created) {
    return workload("StatefulSet", namespace, name, replicas, labels, created);
  }

  private static ObjectNode workload(
      String kind,
      String namespace,
      String name,
      int replicas,
      Map<String, String> labels,
      Instant created) {
    ObjectNode o = base(kind, namespace, name, labels);
    if (created != null) {
      o.with("metadata").put("creationTimestamp", created.toString());
    }
    ObjectNode spec = o.putObject("spec").put("replicas", replicas);
    spec.putObject("selector").putObject("matchLabels").put("app", name);
    ObjectNode pod = spec.putObject("template");
    pod.putObject("metadata").putObject("labels").put("app", name);
    pod.putObject("spec")
        .putArray("containers")
        .addObject()
        .put("name", "main")
        .put("image", "public.ecr.aws/example/" + name + ":1");
    if (kind.equals("StatefulSet")) {
      spec.put("serviceName", name);
    }
    return o;
  }

  public static ObjectNode hpa(
      String namespace,
      String name,
      String targetDeployment,
      int min,
      int max,
      Map<String, String> labels) {
    ObjectNode o = base("HorizontalPodAutoscaler", namespace, name, labels);
    ObjectNode spec = o.putObject("spec");
    spec.putObject("scaleTargetRef")
        .put("apiVersion", "apps/v1")
        .put("kind", "Deployment")
        .put("name", targetDeployment);
    spec.put("minReplicas", min).put("maxReplicas", max);
    spec.putArray("metrics")
        .addObject()
        .put("type", "Resource")
        .putObject("resource")
        .put("name", "cpu")
        .putObject("target")
        .put("type", "Utilization")
        .put("averageUtilization", 70);
    return o;
  }

  /** A KEDA ScaledObject; {@code pausedReplicas} non-null sets the paused-replicas annotation. */
  public static ObjectNode scaledObject(
      String namespace,
      String name,
      String targetDeployment,
      String pausedReplicas,
      Map<String, String> labels) {
    ObjectNode o = base("ScaledObject", namespace, name, labels);
    if (pausedReplicas != null) {
      o.with("metadata")
          .putObject("annotations")
          .put("autoscaling.keda.sh/paused-replicas", pausedReplicas);
    }
    ObjectNode spec = o.putObject("spec");
    spec.putObject("scaleTargetRef").put("name", targetDeployment);
    spec.put("minReplicaCount", 1).put("maxReplicaCount", 8);
    spec.putArray("triggers")
        .addObject()
        .put("type", "prometheus")
        .putObject("metadata")
        .put("serverAddress", "http://prometheus.monitoring:9090")
        .put("query", "sum(rate(requests_total[1m]))")
        .put("threshold", "10");
    return o;
  }

  /** The value at a JSON pointer ({@code /spec/replicas}), missing node when absent. */
  public static JsonNode at(JsonNode object, String pointer) {
    return object.at(pointer);
  }
}

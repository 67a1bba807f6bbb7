package io.gpufleet.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetList;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.LabelSelectors;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fabric8 CRUD mock plus what it lacks for draining: the eviction subresource with
 * PodDisruptionBudget semantics (201 / 429 / 404 / 409 UID precondition / 500 multiple PDBs), pod
 * termination that takes time, a spec.nodeName field selector, per-request latency, queued faults
 * and a log of every request.
 */
final class SimDispatcher extends KubernetesCrudDispatcher {
  private static final Pattern EVICTION =
      Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/?]+)/eviction(\\?.*)?");
  static final String ADMIN_HEADER = "X-Gpufleet-Sim-Admin";

  record Fault(Predicate<RecordedRequest> matches, int code, int[] remaining) {}

  private final ReentrantLock evictionLock = new ReentrantLock();
  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  final List<ApiRequest> log = Collections.synchronizedList(new ArrayList<>());
  volatile Duration latency = Duration.ZERO;
  private final SimCluster cluster;

  SimDispatcher(SimCluster cluster) {
    this.cluster = cluster;
    this.checkpoints = new SimCheckpoints(cluster, this);
  }

  void addFault(Predicate<RecordedRequest> matches, int code, int times) {
    faults.add(new Fault(matches, code, new int[] {times}));
  }

  void clearFaults() {
    faults.clear();
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    boolean admin = request.getHeader(ADMIN_HEADER) != null;
    Instant at = RequestTime.of(request.getHeader(RequestTime.HEADER), cluster.time());
    cluster.catchUp(at);
    MockResponse response;
    if (!admin) {
      log.add(new ApiRequest(System.nanoTime(), request.getMethod(), request.getPath()));
      response = injectedFault(request);
      if (response == null) {
        response = checkpoints.observe(request, at, route(request, at));
      }
      Duration delay = latency;
      if (!delay.isZero()) {
        response.setBodyDelay(delay);
      }
    } else {
      response = route(request, at);
    }
    return response;
  }

  private MockResponse injectedFault(RecordedRequest request) {
    for (Fault f : faults) {
      synchronized (f) {
        if (f.remaining()[0] != 0 && f.matches().test(request)) {
          if (f.remaining()[0] > 0) {
            f.remaining()[0]--;
          }
          return status(f.code(), "InternalError", "simulated API server failure " + f.code());
        }
      }
    }
    return null;
  }

  final PodStore pods = PodStore.pods();
  final PodStore nodes = PodStore.nodes();
  final ObjectStore objects = new ObjectStore();
  final EventStore events = new EventStore();
  private final SimCheckpoints checkpoints;

  private MockResponse route(RecordedRequest request, Instant at) {
    String path = request.getPath();
    if ("POST".equals(request.getMethod())) {
      Matcher m = EVICTION.matcher(path);
      if (m.matches()) {
        return evict(m.group(1), m.group(2), request.getUtf8Body(), at);
      }
    }
    for (PodStore store : List.of(pods, nodes)) {
      if (store.handles(path)) {
        return store.handle(
            request.getMethod(), path, request.getHeader("Content-Type"), request.getUtf8Body());
      }
    }
    if (events.handles(path)) {
      return events.handle(request.getMethod(), path, request.getUtf8Body());
    }
    if (objects.handles(path)) {
      return objects.handle(
          request.getMethod(),
          path,
          request.getHeader("Content-Type"),
          request.getUtf8Body(),
          request.getHeader(ADMIN_HEADER) != null,
          request.getHeader("User-Agent"));
    }
    invalidate(request.method(), path);
    return super.dispatch(request);
  }

  private MockResponse evict(String namespace, String name, String body, Instant at) {
    // Decisions under a PDB must be atomic (concurrent evictions must not over-disrupt); pods no
    // budget selects need no lock, so they are evicted in parallel as the API server does.
    boolean locked = false;
    if (!pdbsIn(namespace).isEmpty()) {
      evictionLock.lock();
      locked = true;
    }
    try {
      var stored = pods.find(namespace, name);
      if (stored == null) {
        return notFound("pods", name);
      }
      Pod pod = Serialization.unmarshal(stored.toString(), Pod.class);
      JsonNode eviction = Json.MAPPER.readTree(body == null || body.isEmpty() ? "{}" : body);
      String wantedUid =
          eviction.path("deleteOptions").path("preconditions").path("uid").asText(null);
      if (wantedUid != null && !wantedUid.equals(pod.getMetadata().getUid())) {
        // as the API server's delete preconditions (rest.BeforeDelete): the kind, not the resource
        return conflict(
            "Pod",
            name,
            "the UID in the precondition ("
                + wantedUid
                + ") does not match the UID in record ("
                + pod.getMetadata().getUid()
                + "). The object might have been deleted and then recreated");
      }
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        return evicted();
      }
      var pdbs = matchingPdbs(pod);
      if (pdbs.size() > 1) {
        // as the API server: a plain error, not a Status, so a 500 with no reason and no details
        return status(
            500,
            null,
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does not"
                + " support.");
      }
      if (pdbs.size() == 1 && healthy(pod)) {
        var budget = budget(pdbs.get(0));
        if (budget.allowed() <= 0) {
          // as the API server: a generic message, the budget's numbers in a DisruptionBudget cause
          return status(
              429,
              "TooManyRequests",
              "Cannot evict pod as it would violate the pod's disruption budget.",
              Map.of(
                  "causes",
                  List.of(
                      Map.of(
                          "reason",
                          "DisruptionBudget",
                          "message",
                          refusal(pdbs.get(0).getMetadata().getName(), budget)))));
        }
      }
      long grace =
          eviction.path("deleteOptions").has("gracePeriodSeconds")
              ? eviction.path("deleteOptions").path("gracePeriodSeconds").asLong()
              : Optional.ofNullable(pod.getSpec().getTerminationGracePeriodSeconds()).orElse(30L);
      cluster.beginTermination(pod, grace, at);
      return evicted();
    } catch (java.io.IOException e) {
      return status(400, "BadRequest", "unreadable Eviction: " + e.getMessage());
    } finally {
      if (locked) {
        evictionLock.unlock();
      }
    }
  }

  /**
   * The DisruptionBudget cause of a 429, as the eviction subresource words it: the numbers while
   * the budget is short of healthy pods, else only that it allows nothing now (e.g. a budget that
   * expects no pods).
   */
  static String refusal(String pdb, Budget budget) {
    return budget.healthy() <= budget.desired()
        ? "The disruption budget "
            + pdb
            + " needs "
            + budget.desired()
            + " healthy pods and has "
            + budget.healthy()
            + " currently"
        : "The disruption budget " + pdb + " does not allow evicting pods currently";
  }

  /**
   * Marks a pod terminating inside the store; {@code at} is when the eviction was accepted, and the
   * deletionTimestamp is, as the API server sets it, the moment the grace period runs out.
   */
  void markTerminating(Pod pod, long grace, Instant at) {
    evictionLock.lock();
    try {
      String podPath =
          "/api/v1/namespaces/"
              + pod.getMetadata().getNamespace()
              + "/pods/"
              + pod.getMetadata().getName();
      ObjectNode patch = Json.MAPPER.createObjectNode();
      // as the eviction subresource: a DisruptionTarget condition before the deletion
      var conditions = patch.putObject("status").putArray("conditions");
      if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
        pod.getStatus().getConditions().forEach(c -> conditions.add(Json.MAPPER.valueToTree(c)));
      }
      conditions
          .addObject()
          .put("type", "DisruptionTarget")
          .put("status", "True")
          .put(
              "lastTransitionTime",
              cluster.time().now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString())
          .put("reason", "EvictionByEvictionAPI")
          .put("message", "Eviction API: evicting");
      patch
          .putObject("metadata")
          // as the API server: the moment the grace period runs out, not the moment of the request
          .put(
              "deletionTimestamp",
              at.plusSeconds(grace).truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString())
          .put("deletionGracePeriodSeconds", grace);
      internal(HttpMethod.PATCH, podPath, patch.toString());
    } finally {
      evictionLock.unlock();
    }
  }

  record Budget(int healthy, int desired, int expected) {
    /** As the controller: none while it expects no pods, never below zero. */
    int allowed() {
      return expected <= 0 ? 0 : Math.max(0, healthy - desired);
    }
  }

  private final Map<String, List<PodDisruptionBudget>> pdbCache =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** The namespace's PDBs, cached until a PDB is written. */
  private List<PodDisruptionBudget> pdbsIn(String ns) {
    return pdbCache.computeIfAbsent(
        ns,
        n ->
            Serialization.unmarshal(
                    internal(
                            HttpMethod.GET,
                            "/apis/policy/v1/namespaces/" + n + "/poddisruptionbudgets",
                            null)
                        .getBody()
                        .readUtf8(),
                    PodDisruptionBudgetList.class)
                .getItems());
  }

  private void invalidate(HttpMethod method, String path) {
    if (method != HttpMethod.GET && path.contains("/poddisruptionbudgets")) {
      pdbCache.clear();
    }
  }

  private List<PodDisruptionBudget> matchingPdbs(Pod pod) {
    return pdbsIn(pod.getMetadata().getNamespace()).stream()
        .filter(
            p -> LabelSelectors.matches(p.getSpec().getSelector(), pod.getMetadata().getLabels()))
        .toList();
  }

  /**
   * expectedPods, desiredHealthy and currentHealthy as the disruption controller computes them: an
   * integer minAvailable counts the selected pods (terminating ones included); maxUnavailable and a
   * percentage take the controllers' scale, which the simulator has no controllers for, so the
   * PDB's seeded status.expectedPods stands in for it (else the managed pods); pods no controller
   * owns are left out of that scale, so a budget over unmanaged pods only expects none.
   */
  Budget budget(PodDisruptionBudget pdb) {
    String ns = pdb.getMetadata().getNamespace();
    var selected =
        pods.inNamespace(ns).stream()
            .map(json -> Serialization.unmarshal(json.toString(), Pod.class))
            .filter(
                p ->
                    LabelSelectors.matches(
                        pdb.getSpec().getSelector(), p.getMetadata().getLabels()))
            .toList();
    int healthy = (int) selected.stream().filter(SimDispatcher::healthy).count();
    var min = pdb.getSpec().getMinAvailable();
    int expected;
    int desired;
    if (min != null && min.getIntVal() != null && pdb.getSpec().getMaxUnavailable() == null) {
      expected = selected.size();
      desired = min.getIntVal();
    } else {
      int managed = (int) selected.stream().filter(SimDispatcher::managed).count();
      Integer seeded = pdb.getStatus() == null ? null : pdb.getStatus().getExpectedPods();
      expected = managed == 0 ? 0 : seeded != null && seeded > 0 ? seeded : managed;
      if (pdb.getSpec().getMaxUnavailable() != null) {
        desired = expected - resolve(pdb.getSpec().getMaxUnavailable(), expected);
      } else if (min != null) {
        desired = resolve(min, expected);
      } else {
        desired = expected;
      }
    }
    return new Budget(healthy, Math.max(0, desired), expected);
  }

  private static boolean managed(Pod p) {
    var owners = p.getMetadata().getOwnerReferences();
    return owners != null && owners.stream().anyMatch(o -> Boolean.TRUE.equals(o.getController()));
  }

  private static int resolve(IntOrString value, int expected) {
    if (value.getIntVal() != null) {
      return value.getIntVal();
    }
    String s = value.getStrVal();
    if (s.endsWith("%")) {
      return (int) Math.ceil(expected * Integer.parseInt(s.substring(0, s.length() - 1)) / 100.0);
    }
    return Integer.parseInt(s);
  }

  static boolean healthy(Pod p) {
    if (p.getMetadata().getDeletionTimestamp() != null || p.getStatus() == null) {
      return false;
    }
    if (!"Running".equals(p.getStatus().getPhase())) {
      return false;
    }
    return p.getStatus().getConditions() == null
        || p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  MockResponse internal(HttpMethod method, String path, String body) {
    var headers =
        Headers.builder().add("Content-Type", contentType(method)).add(ADMIN_HEADER, "1").build();
    var buffer = body == null ? new Buffer() : new Buffer(body.getBytes(StandardCharsets.UTF_8));
    return route(
        new RecordedRequest("HTTP/1.1", method, path, headers, buffer), cluster.time().now());
  }

  private static String contentType(HttpMethod method) {
    return method == HttpMethod.PATCH ? "application/merge-patch+json" : "application/json";
  }

  private static MockResponse evicted() {
    return new MockResponse()
        .setResponseCode(201)
        .setBody(
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\",\"code\":201}");
  }

  static MockResponse status(int code, String reason, String message) {
    return status(code, reason, message, null);
  }

  /** A failure Status as the API server writes it ({@code details} left out when null). */
  static MockResponse status(int code, String reason, String message, Map<String, ?> details) {
    var body = new java.util.LinkedHashMap<String, Object>();
    body.put("kind", "Status");
    body.put("apiVersion", "v1");
    body.put("metadata", Map.of());
    body.put("status", "Failure");
    body.put("message", message);
    if (reason != null) {
      body.put("reason", reason);
    }
    if (details != null) {
      body.put("details", details);
    }
    body.put("code", code);
    return new MockResponse().setResponseCode(code).setBody(Json.write(body));
  }

  /** 404 as the API server words it: {@code <resource> "<name>" not found}. */
  static MockResponse notFound(String resource, String name) {
    return status(
        404, "NotFound", resource + " \"" + name + "\" not found", details(resource, name));
  }

  /** StatusDetails of a named object: name, group (when not core) and the resource as kind. */
  private static Map<String, Object> details(String resource, String name) {
    int dot = resource.indexOf('.');
    var details = new java.util.LinkedHashMap<String, Object>();
    details.put("name", name);
    if (dot > 0) {
      details.put("group", resource.substring(dot + 1));
    }
    details.put("kind", dot > 0 ? resource.substring(0, dot) : resource);
    return details;
  }

  /** 409 for a stale resourceVersion, worded as the API server does. */
  static MockResponse modified(String resource, String name) {
    return conflict(
        resource,
        name,
        "the object has been modified; please apply your changes to the latest version and try"
            + " again");
  }

  /** 409 {@code Operation cannot be fulfilled on <resource> "<name>": <why>}. */
  static MockResponse conflict(String resource, String name, String why) {
    return status(
        409,
        "Conflict",
        "Operation cannot be fulfilled on " + resource + " \"" + name + "\": " + why,
        details(resource, name));
  }
}

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
        response = route(request, at);
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
          request.getHeader(ADMIN_HEADER) != null);
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
        return status(404, "NotFound", "pods \"" + name + "\" not found");
      }
      Pod pod = Serialization.unmarshal(stored.toString(), Pod.class);
      JsonNode eviction = Json.MAPPER.readTree(body == null || body.isEmpty() ? "{}" : body);
      String wantedUid =
          eviction.path("deleteOptions").path("preconditions").path("uid").asText(null);
      if (wantedUid != null && !wantedUid.equals(pod.getMetadata().getUid())) {
        return status(
            409,
            "Conflict",
            "Precondition failed: UID in precondition: "
                + wantedUid
                + ", UID in object meta: "
                + pod.getMetadata().getUid());
      }
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        return evicted();
      }
      var pdbs = matchingPdbs(pod);
      if (pdbs.size() > 1) {
        return status(
            500,
            "InternalError",
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does not"
                + " support.");
      }
      if (pdbs.size() == 1 && healthy(pod)) {
        var budget = budget(pdbs.get(0));
        if (budget.allowed() <= 0) {
          return status(
              429,
              "TooManyRequests",
              "Cannot evict pod as it would violate the pod's disruption budget. The disruption"
                  + " budget "
                  + pdbs.get(0).getMetadata().getName()
                  + " needs "
                  + budget.desired()
                  + " healthy pods and has "
                  + budget.healthy()
                  + " currently");
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

  /** Marks a pod terminating (deletionTimestamp {@code at}) inside the store. */
  void markTerminating(Pod pod, long grace, Instant at) {
    evictionLock.lock();
    try {
      String podPath =
          "/api/v1/namespaces/"
              + pod.getMetadata().getNamespace()
              + "/pods/"
              + pod.getMetadata().getName();
      ObjectNode patch = Json.MAPPER.createObjectNode();
      patch
          .putObject("metadata")
          .put("deletionTimestamp", at.toString())
          .put("deletionGracePeriodSeconds", grace);
      internal(HttpMethod.PATCH, podPath, patch.toString());
    } finally {
      evictionLock.unlock();
    }
  }

  record Budget(int healthy, int desired, int expected) {
    int allowed() {
      return healthy - desired;
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

  /** desiredHealthy and currentHealthy as the disruption controller computes them. */
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
    int expected =
        pdb.getStatus() != null
                && pdb.getStatus().getExpectedPods() != null
                && pdb.getStatus().getExpectedPods() > 0
            ? pdb.getStatus().getExpectedPods()
            : selected.size();
    int desired;
    if (pdb.getSpec().getMinAvailable() != null) {
      desired = resolve(pdb.getSpec().getMinAvailable(), expected);
    } else if (pdb.getSpec().getMaxUnavailable() != null) {
      desired = expected - resolve(pdb.getSpec().getMaxUnavailable(), expected);
    } else {
      desired = expected;
    }
    return new Budget(healthy, Math.max(0, desired), expected);
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
    var body =
        Map.of(
            "kind",
            "Status",
            "apiVersion",
            "v1",
            "metadata",
            Map.of(),
            "status",
            "Failure",
            "message",
            message,
            "reason",
            reason,
            "code",
            code);
    return new MockResponse().setResponseCode(code).setBody(Json.write(body));
  }
}

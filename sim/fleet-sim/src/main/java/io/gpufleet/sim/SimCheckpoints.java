package io.gpufleet.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.CheckpointAnnotations;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Simulated training workloads that watch their own pod: a pod annotated {@link #TAKES} (a duration
 * such as {@code "20s"}, or {@code "never"}) starts its checkpoint the moment an annotation {@link
 * CheckpointAnnotations#KIND} appears on it and, that long later in simulated time, sets {@link
 * CheckpointAnnotations#DONE} to the time it finished, as the training-side snippet of
 * docs/interruption-drain.md does. {@code never} models a job that never reports.
 */
final class SimCheckpoints {
  /** How long the simulated workload's checkpoint takes once it is told ("never": no report). */
  static final String TAKES = "sim.gpufleet.io/checkpoint-takes";

  private static final Pattern POD =
      Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/?]+)(\\?.*)?");

  private final SimCluster cluster;
  private final SimDispatcher dispatcher;

  /**
   * Pod UID to the kind it was last told of (a repeated notice does not restart the checkpoint).
   */
  private final Map<String, String> told = new ConcurrentHashMap<>();

  SimCheckpoints(SimCluster cluster, SimDispatcher dispatcher) {
    this.cluster = cluster;
    this.dispatcher = dispatcher;
  }

  /** Looks at a pod write after it was answered; returns the answer unchanged. */
  MockResponse observe(RecordedRequest request, Instant at, MockResponse response) {
    if (!"PATCH".equals(request.getMethod()) || response.code() / 100 != 2) {
      return response;
    }
    Matcher m = POD.matcher(request.getPath());
    if (!m.matches()) {
      return response;
    }
    ObjectNode pod = dispatcher.pods.find(m.group(1), m.group(2));
    JsonNode annotations = pod == null ? null : pod.path("metadata").path("annotations");
    if (annotations == null
        || !annotations.has(TAKES)
        || !annotations.has(CheckpointAnnotations.KIND)) {
      return response;
    }
    String uid = pod.path("metadata").path("uid").asText();
    String kind = annotations.path(CheckpointAnnotations.KIND).asText();
    if (kind.equals(told.put(uid, kind))) {
      return response;
    }
    Duration takes = parse(annotations.path(TAKES).asText());
    if (takes != null) {
      Instant done = at.plus(takes);
      String path = "/api/v1/namespaces/" + m.group(1) + "/pods/" + m.group(2);
      cluster.schedule(done, () -> report(path, uid, done));
    }
    return response;
  }

  private void report(String path, String uid, Instant done) {
    ObjectNode patch = Json.MAPPER.createObjectNode();
    patch
        .putObject("metadata")
        .put("uid", uid)
        .putObject("annotations")
        .put(CheckpointAnnotations.DONE, done.truncatedTo(ChronoUnit.SECONDS).toString());
    dispatcher.internal(HttpMethod.PATCH, path, patch.toString());
  }

  /** "20s", "2m", "1m30s"; null for "never" or anything unreadable. */
  static Duration parse(String text) {
    Matcher m = Pattern.compile("(?:(\\d+)m)?(?:(\\d+)s)?").matcher(text);
    if (text.isEmpty() || !m.matches()) {
      return null;
    }
    long s = 0;
    if (m.group(1) != null) {
      s += Long.parseLong(m.group(1)) * 60;
    }
    if (m.group(2) != null) {
      s += Long.parseLong(m.group(2));
    }
    return Duration.ofSeconds(s);
  }
}

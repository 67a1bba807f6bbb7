package io.gpufleet.cli;

import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.LifecycleEvents;
import io.gpufleet.core.json.Json;
import io.gpufleet.drain.SqsBatch;
import io.gpufleet.scenario.LocalInvoke;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The interruption drain of {@code invoke} against the simulated account, wired as {@code simulate}
 * wires it ({@link SimulateCommand.DrainSim}: the demo fleet, the research cluster and a simulated
 * Auto Scaling group whose lifecycle actions the drain heartbeats and completes).
 *
 * <p>An SQS event is delivered record by record, each as a one-message batch through the real
 * handler, so every record's outcomes (what the drain published while handling it) are known: the
 * answer is {@code {"batchItemFailures": [...], "records": [{"messageId", "retried",
 * "outcomes"}]}}. With {@code nodePerInstance}, every instance a payload names that no simulated
 * node runs on gets a GPU node with two pods first, so the peers' fixtures (their own instance ids)
 * can be acted on.
 */
final class InvokeDrainSim implements InvokeCommand.Env {
  private static final Pattern INSTANCE = Pattern.compile("i-[0-9a-f]{8,17}");

  private final SimulateCommand.DrainSim sim;
  private final boolean nodePerInstance;
  private int created;

  InvokeDrainSim(double speed, boolean nodePerInstance) {
    this.sim =
        SimulateCommand.DrainSim.start(
            speed,
            new Recorders.RecordingMetrics(),
            new Recorders.RecordingPublisher(),
            new Recorders.RecordingNotifier());
    this.nodePerInstance = nodePerInstance;
  }

  @Override
  public RequestStreamHandler handler() {
    return sim.handler;
  }

  /** Holds the lifecycle actions the payload carries; adds nodes for its instances if asked. */
  @Override
  public void before(byte[] payload) {
    for (JsonNode event : events(payload)) {
      JsonNode d = event.has("detail") ? event.path("detail") : event;
      if (d.hasNonNull("LifecycleActionToken")
          && d.path("LifecycleTransition").asText().contains("EC2_INSTANCE_")) {
        sim.asg.hold(
            d.path("AutoScalingGroupName").asText(),
            d.path("LifecycleHookName").asText(),
            d.path("EC2InstanceId").asText(),
            d.path("LifecycleTransition").asText(),
            Duration.ofMinutes(15),
            "ABANDON",
            d.path("LifecycleActionToken").asText());
      }
      if (nodePerInstance) {
        instances(event).forEach(this::ensureNode);
      }
    }
  }

  /**
   * An SQS event: every record decoded and drained as the handler's batch path does it ({@code
   * LifecycleEvents.decodeSqsBody} with the record's region, then the drain service), so each
   * record's outcomes are known; a record whose handling threw is the one the partial batch
   * response would name for redelivery.
   */
  @Override
  public JsonNode invoke(String function, byte[] payload) throws IOException {
    var batch = SqsBatch.parse(payload);
    if (batch.isEmpty()) {
      return InvokeCommand.answer(sim.handler, function, payload);
    }
    var decoder = new EventDecoder(sim.time.clock(), System.getenv("AWS_REGION"));
    Instant hardStop =
        sim.time.now().plusMillis(LocalInvoke.TIMEOUT_MILLIS.get(function)).minusSeconds(5);
    ObjectNode answer = Json.MAPPER.createObjectNode();
    var failures = answer.putArray("batchItemFailures");
    var records = answer.putArray("records");
    for (SqsBatch.Message m : batch.get().messages()) {
      ObjectNode r = records.addObject();
      r.put("messageId", m.messageId());
      var outcomes = r.putArray("outcomes");
      try {
        var decoded =
            LifecycleEvents.decodeSqsBody(
                new String(m.body(), StandardCharsets.UTF_8), m.awsRegion(), decoder);
        for (var o : sim.service.handle(decoded, hardStop)) {
          outcomes.add(Json.MAPPER.valueToTree(o));
        }
        r.put("retried", false);
      } catch (RuntimeException e) {
        r.put("retried", true);
        r.put("error", e.toString());
        failures.addObject().put("itemIdentifier", m.messageId());
      }
    }
    return answer;
  }

  @Override
  public void close() {
    sim.close();
  }

  /** The events of a payload: itself, or each SQS record's body (SNS-wrapped ones unwrapped). */
  static List<JsonNode> events(byte[] payload) {
    JsonNode root;
    try {
      root = Json.readPayload(payload);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
    if (root == null || !root.isObject()) {
      return List.of();
    }
    if (SqsBatch.parse(payload).isEmpty()) {
      return List.of(root);
    }
    var out = new java.util.ArrayList<JsonNode>();
    for (JsonNode r : root.path("Records")) {
      out.addAll(events(r.path("body").asText("").getBytes(StandardCharsets.UTF_8)));
    }
    out.replaceAll(
        e ->
            e.path("Message").isTextual()
                ? events(e.path("Message").asText().getBytes(StandardCharsets.UTF_8)).stream()
                    .findFirst()
                    .orElse(e)
                : e);
    return out;
  }

  /** Every instance id an event names (detail, Auto Scaling's direct form, Health entities). */
  static Set<String> instances(JsonNode event) {
    var ids = new LinkedHashSet<String>();
    JsonNode d = event.has("detail") ? event.path("detail") : event;
    for (String field : List.of("instance-id", "EC2InstanceId")) {
      String v = d.path(field).asText("");
      if (INSTANCE.matcher(v).matches()) {
        ids.add(v);
      }
    }
    for (JsonNode e : d.path("affectedEntities")) {
      String v = e.path("entityValue").asText("");
      String tail = v.substring(v.lastIndexOf('/') + 1);
      if (INSTANCE.matcher(tail).matches()) {
        ids.add(tail);
      }
    }
    return ids;
  }

  private void ensureNode(String instanceId) {
    SimCluster cluster = sim.cluster;
    boolean known =
        cluster.nodes().stream()
            .anyMatch(n -> String.valueOf(n.getSpec().getProviderID()).endsWith("/" + instanceId));
    if (known) {
      return;
    }
    String node = "ip-10-9-" + (created / 250) + "-" + (created % 250 + 1) + ".ec2.internal";
    created++;
    cluster.create(
        SimCluster.gpuNode(
            node, instanceId, "us-east-1a", "p5.48xlarge", "on-demand", "gpu", null, 8));
    for (int i = 0; i < 2; i++) {
      cluster.create(
          SimCluster.runningPod(
              "apps", node + "-web-" + i, node, "ReplicaSet", "web", Map.of("app", "web"), 5, 0));
    }
  }
}

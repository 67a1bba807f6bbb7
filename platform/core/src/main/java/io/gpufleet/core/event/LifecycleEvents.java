package io.gpufleet.core.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.event.FleetEvent.LifecycleAction;
import io.gpufleet.core.event.FleetEvent.LifecycleAction.Continuation;
import io.gpufleet.core.event.FleetEvent.Unsupported;
import io.gpufleet.core.json.Json;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * EC2 Auto Scaling lifecycle hooks in the three forms they arrive in: the EventBridge events
 * ({@code aws.autoscaling}, "EC2 Instance-launch/-terminate Lifecycle Action"), the flat message
 * Auto Scaling sends straight to an SQS queue named as the hook's notification target ({@code
 * "Service":"AWS Auto Scaling"}, no envelope, possibly wrapped in an SNS {@code "Message"}), and
 * the drain's own continuation of a drain that outlives one invocation. Test notifications ({@code
 * autoscaling:TEST_NOTIFICATION}, no token) are acknowledged as a no-op.
 */
public final class LifecycleEvents {
  public static final String TEST_NOTIFICATION = "autoscaling:TEST_NOTIFICATION";
  public static final String DIRECT_SERVICE = "AWS Auto Scaling";
  private static final Set<String> TRANSITIONS =
      Set.of(LifecycleAction.LAUNCHING, LifecycleAction.TERMINATING);

  private LifecycleEvents() {}

  /** The EventBridge form's {@code detail} (the direct form carries the same member names). */
  static FleetEvent fromDetail(EventMeta meta, JsonNode detail) throws InvalidEvent {
    return parse(meta, detail, "detail", null);
  }

  private static FleetEvent parse(
      EventMeta meta, JsonNode node, String where, Continuation continuation) throws InvalidEvent {
    String group = EventFields.text(node, "AutoScalingGroupName");
    if (TEST_NOTIFICATION.equals(EventFields.text(node, "Event"))
        || TEST_NOTIFICATION.equals(EventFields.text(node, "LifecycleTransition"))) {
      return new Unsupported(
          meta,
          TEST_NOTIFICATION
              + (group == null ? "" : " from Auto Scaling group " + group)
              + ": acknowledged, nothing to do");
    }
    String transition = EventFields.required(node, "LifecycleTransition", where);
    String instance = EventFields.required(node, "EC2InstanceId", where);
    if (!EventFields.INSTANCE_ID.matcher(instance).matches()) {
      throw new InvalidEvent(where + ".EC2InstanceId is not an EC2 instance id");
    }
    if (!TRANSITIONS.contains(transition)) {
      // e.g. a warm-pool or future transition: well-formed, but not one this function acts on
      return new Unsupported(
          meta, "lifecycle transition " + Bounded.of(transition) + " needs no action");
    }
    // NTH's v2 minimal bodies name neither: the node can still be drained, the action cannot be
    // completed (CompleteLifecycleAction needs both), and the outcome says so
    group = EventFields.nonBlank(node, "AutoScalingGroupName");
    String hook = EventFields.nonBlank(node, "LifecycleHookName");
    if (group == null || hook == null) {
      meta =
          meta.withCaveat(
              "lifecycle action not completed: no " + (group == null ? "group" : "hook") + " name");
    }
    String token = EventFields.text(node, "LifecycleActionToken");
    if (token != null && token.length() != 36) {
      // CompleteLifecycleAction refuses a token that is not 36 characters; the instance id
      // identifies the same action
      token = null;
    }
    return new LifecycleAction(
        meta,
        instance,
        transition,
        group,
        hook,
        token,
        EventFields.text(node, "NotificationMetadata"),
        EventFields.text(node, "Origin"),
        EventFields.text(node, "Destination"),
        continuation);
  }

  /** The drain's continuation envelope: the hook's members plus where the drain stands. */
  static FleetEvent continuation(EventMeta meta, JsonNode detail) throws InvalidEvent {
    JsonNode c = detail.get("continuation");
    if (c == null || !c.isObject()) {
      throw new InvalidEvent("detail field 'continuation' must be an object");
    }
    String original = EventFields.required(c, "originalEventId", "detail.continuation");
    Instant first =
        EventFields.instant(
            EventFields.required(c, "firstReceived", "detail.continuation"),
            "detail.continuation.firstReceived");
    int round = c.path("round").asInt(0);
    if (round < 1) {
      throw new InvalidEvent("detail.continuation.round must be a positive integer");
    }
    var parsed =
        parse(
            meta,
            detail,
            "detail",
            new Continuation(original, round, first, Math.max(0, c.path("heartbeats").asInt(0))));
    if (!(parsed instanceof LifecycleAction)) {
      throw new InvalidEvent("a lifecycle drain continuation must carry a lifecycle action");
    }
    return parsed;
  }

  /**
   * The body of the message that resumes {@code action} later: an EventBridge-shaped envelope, so
   * it decodes through the same table whether it arrives directly or through SQS.
   */
  public static ObjectNode continuationEnvelope(
      LifecycleAction action, Continuation next, Instant now) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("version", "0");
    root.put("id", next.originalEventId() + "#" + next.round());
    root.put("detail-type", EventDecoder.LIFECYCLE_CONTINUATION);
    root.put("source", EventDecoder.DRAIN_SOURCE);
    root.put("account", action.meta().account());
    root.put("time", now.toString());
    root.put("region", action.meta().region());
    root.putArray("resources");
    ObjectNode d = root.putObject("detail");
    d.put("LifecycleTransition", action.transition());
    d.put("EC2InstanceId", action.instanceId());
    d.put("AutoScalingGroupName", action.autoScalingGroupName());
    d.put("LifecycleHookName", action.hookName());
    putIfSet(d, "LifecycleActionToken", action.token());
    putIfSet(d, "NotificationMetadata", action.notificationMetadata());
    putIfSet(d, "Origin", action.origin());
    putIfSet(d, "Destination", action.destination());
    ObjectNode c = d.putObject("continuation");
    c.put("originalEventId", next.originalEventId());
    c.put("round", next.round());
    c.put("firstReceived", next.firstReceived().toString());
    c.put("heartbeats", next.heartbeats());
    return root;
  }

  private static void putIfSet(ObjectNode node, String field, String value) {
    if (value != null) {
      node.put(field, value);
    }
  }

  /**
   * Decodes one SQS record body: the direct Auto Scaling form (or its test notification), an SNS
   * notification wrapping either form in {@code "Message"}, or else an EventBridge envelope through
   * {@code decoder}. {@code recordRegion} (the SQS record's {@code awsRegion}) stands in for the
   * region the direct form does not carry.
   */
  public static DecodeResult decodeSqsBody(String body, String recordRegion, EventDecoder decoder) {
    if (body == null || body.isBlank()) {
      return new DecodeResult.Rejected("empty SQS message body", null);
    }
    JsonNode root;
    try {
      root = Json.readPayload(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (java.io.IOException e) {
      return decoder.decodeString(body); // the decoder words the rejection
    }
    String envelope = body;
    if (root != null && root.isObject() && root.path("Message").isTextual()) {
      // an SNS notification (Type "Notification") relayed to SQS without raw delivery
      envelope = root.get("Message").asText();
      try {
        root = Json.readPayload(envelope.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      } catch (java.io.IOException e) {
        return new DecodeResult.Rejected("SNS Message is not JSON", null);
      }
    }
    if (root == null || !root.isObject() || !isDirectForm(root)) {
      // the same checks (size, one document, envelope) as a direct invocation
      return decoder.decodeString(envelope);
    }
    String requestId = EventFields.text(root, "RequestId");
    try {
      String time = EventFields.text(root, "Time");
      Instant at =
          time == null || time.isBlank()
              ? Instant.now()
              : EventFields.instant(time, "Auto Scaling message field 'Time'");
      String transition = EventFields.text(root, "LifecycleTransition");
      var meta =
          new EventMeta(
              requestId == null
                  ? "asg-" + EventFields.text(root, "LifecycleActionToken")
                  : requestId,
              "aws.autoscaling",
              LifecycleAction.LAUNCHING.equals(transition)
                  ? EventDecoder.LIFECYCLE_LAUNCH
                  : EventDecoder.LIFECYCLE_TERMINATE,
              EventFields.text(root, "AccountId"),
              recordRegion,
              at,
              List.of());
      return new DecodeResult.Decoded(parse(meta, root, "Auto Scaling message", null));
    } catch (InvalidEvent e) {
      return new DecodeResult.Rejected(e.getMessage(), requestId);
    }
  }

  /** Auto Scaling's own message: {@code Service} says so, and there is no EventBridge envelope. */
  static boolean isDirectForm(JsonNode root) {
    return !root.has("detail-type")
        && (DIRECT_SERVICE.equals(EventFields.text(root, "Service"))
            || TEST_NOTIFICATION.equals(EventFields.text(root, "Event"))
            || root.has("LifecycleTransition"));
  }

  /** Echoed input, bounded (a rejection or note never repeats an unbounded value). */
  static final class Bounded {
    static String of(String s) {
      if (s == null) {
        return "null";
      }
      return "'" + (s.length() <= 64 ? s : s.substring(0, 64) + "…") + "'";
    }
  }
}

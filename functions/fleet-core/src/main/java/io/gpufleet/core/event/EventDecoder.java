package io.gpufleet.core.event;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.event.FleetEvent.AlarmMetric;
import io.gpufleet.core.event.FleetEvent.AlarmStateChange;
import io.gpufleet.core.event.FleetEvent.HealthScheduledChange;
import io.gpufleet.core.event.FleetEvent.InstanceStateChange;
import io.gpufleet.core.event.FleetEvent.RebalanceRecommendation;
import io.gpufleet.core.event.FleetEvent.SpotInterruption;
import io.gpufleet.core.event.FleetEvent.Unsupported;
import io.gpufleet.core.json.Json;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decodes an EventBridge envelope into a {@link FleetEvent}. One parser per (source, detail-type),
 * registered in one table; unknown kinds become {@link Unsupported}; anything unreadable becomes a
 * {@link DecodeResult.Rejected} with the reason. Never throws.
 */
public final class EventDecoder {

  /** Thrown by a detail parser when a required field is missing or malformed. */
  static final class InvalidEvent extends Exception {
    InvalidEvent(String message) {
      super(message);
    }
  }

  @FunctionalInterface
  interface DetailParser {
    FleetEvent parse(EventMeta meta, JsonNode detail) throws InvalidEvent;
  }

  record Kind(String source, String detailType) {}

  public static final String SPOT_WARNING = "EC2 Spot Instance Interruption Warning";
  public static final String REBALANCE = "EC2 Instance Rebalance Recommendation";
  public static final String STATE_CHANGE = "EC2 Instance State-change Notification";
  public static final String HEALTH = "AWS Health Event";
  public static final String ALARM = "CloudWatch Alarm State Change";
  public static final String LIFECYCLE_LAUNCH = "EC2 Instance-launch Lifecycle Action";
  public static final String LIFECYCLE_TERMINATE = "EC2 Instance-terminate Lifecycle Action";

  /** The drain's own follow-up of a lifecycle drain (see {@link LifecycleEvents}). */
  public static final String LIFECYCLE_CONTINUATION = "GPU Fleet Lifecycle Drain Continuation";

  public static final String DRAIN_SOURCE = "gpufleet.interruption-drain";

  static final Pattern INSTANCE_ID = Pattern.compile("i-[0-9a-f]{8,17}");
  private static final Set<String> SPOT_ACTIONS = Set.of("terminate", "stop", "hibernate");
  private static final Set<String> STATES =
      Set.of("pending", "running", "stopping", "stopped", "shutting-down", "terminated");
  private static final Set<String> ALARM_STATES = Set.of("OK", "ALARM", "INSUFFICIENT_DATA");
  private static final Set<String> STATES_THAT_MATTER =
      Set.of("stopping", "stopped", "shutting-down", "terminated");
  private static final DateTimeFormatter COMPACT_OFFSET =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss[.SSS]XX");
  private static final int MAX_PAYLOAD_BYTES = 256 * 1024;

  private static final Map<Kind, DetailParser> PARSERS =
      Map.of(
          new Kind("aws.ec2", SPOT_WARNING), EventDecoder::spotWarning,
          new Kind("aws.ec2", REBALANCE), EventDecoder::rebalance,
          new Kind("aws.ec2", STATE_CHANGE), EventDecoder::stateChange,
          new Kind("aws.health", HEALTH), EventDecoder::health,
          new Kind("aws.cloudwatch", ALARM), EventDecoder::alarm,
          new Kind("aws.autoscaling", LIFECYCLE_LAUNCH), LifecycleEvents::fromDetail,
          new Kind("aws.autoscaling", LIFECYCLE_TERMINATE), LifecycleEvents::fromDetail,
          new Kind(DRAIN_SOURCE, LIFECYCLE_CONTINUATION), LifecycleEvents::continuation);

  public DecodeResult decode(byte[] payload) {
    if (payload == null || payload.length == 0) {
      return new DecodeResult.Rejected("empty payload", null);
    }
    if (payload.length > MAX_PAYLOAD_BYTES) {
      return new DecodeResult.Rejected(
          "payload of " + payload.length + " bytes exceeds the 256 KiB EventBridge limit", null);
    }
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(payload);
    } catch (java.io.IOException e) {
      return new DecodeResult.Rejected("not JSON: " + firstLine(e), null);
    }
    return decode(root);
  }

  public DecodeResult decode(JsonNode root) {
    if (root == null || !root.isObject()) {
      return new DecodeResult.Rejected("payload is not a JSON object", null);
    }
    String id = text(root, "id");
    try {
      EventMeta meta = meta(root);
      JsonNode detail = root.get("detail");
      if (detail == null || !detail.isObject()) {
        throw new InvalidEvent("envelope field 'detail' must be an object");
      }
      DetailParser parser = PARSERS.get(new Kind(meta.source(), meta.detailType()));
      if (parser == null) {
        return new DecodeResult.Decoded(
            new Unsupported(
                meta,
                "no handler for source '"
                    + meta.source()
                    + "' detail-type '"
                    + meta.detailType()
                    + "'"));
      }
      return new DecodeResult.Decoded(parser.parse(meta, detail));
    } catch (InvalidEvent e) {
      return new DecodeResult.Rejected(e.getMessage(), id);
    } catch (RuntimeException e) {
      return new DecodeResult.Rejected("unreadable event: " + e, id);
    }
  }

  public DecodeResult decodeString(String payload) {
    return decode(
        payload == null ? null : payload.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  static EventMeta meta(JsonNode root) throws InvalidEvent {
    String id = required(root, "id", "envelope");
    String source = required(root, "source", "envelope");
    String detailType = required(root, "detail-type", "envelope");
    Instant time = instant(required(root, "time", "envelope"), "envelope field 'time'");
    String account = text(root, "account");
    String region = text(root, "region");
    List<String> resources = new ArrayList<>();
    JsonNode res = root.get("resources");
    if (res != null && !res.isNull()) {
      if (!res.isArray()) {
        throw new InvalidEvent("envelope field 'resources' must be an array");
      }
      res.forEach(r -> resources.add(r.asText()));
    }
    return new EventMeta(id, source, detailType, account, region, time, List.copyOf(resources));
  }

  private static FleetEvent spotWarning(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String instance = instanceId(detail);
    String action = required(detail, "instance-action", "detail");
    if (!SPOT_ACTIONS.contains(action)) {
      throw new InvalidEvent(
          "detail.instance-action '" + action + "' is not one of " + sorted(SPOT_ACTIONS));
    }
    return new SpotInterruption(meta, instance, action);
  }

  private static FleetEvent rebalance(EventMeta meta, JsonNode detail) throws InvalidEvent {
    return new RebalanceRecommendation(meta, instanceId(detail));
  }

  private static FleetEvent stateChange(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String instance = instanceId(detail);
    String state = required(detail, "state", "detail");
    if (!STATES.contains(state)) {
      throw new InvalidEvent("detail.state '" + state + "' is not one of " + sorted(STATES));
    }
    if (!STATES_THAT_MATTER.contains(state)) {
      return new Unsupported(meta, "instance " + instance + " is " + state + ": nothing to do");
    }
    return new InstanceStateChange(meta, instance, state);
  }

  private static FleetEvent health(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String service = required(detail, "service", "detail");
    String category = required(detail, "eventTypeCategory", "detail");
    String typeCode = required(detail, "eventTypeCode", "detail");
    String arn = required(detail, "eventArn", "detail");
    if (!"EC2".equals(service) || !"scheduledChange".equals(category)) {
      return new Unsupported(
          meta, "AWS Health " + service + "/" + category + " events need no action");
    }
    Instant start = instant(required(detail, "startTime", "detail"), "detail.startTime");
    String endText = text(detail, "endTime");
    Instant end = endText == null || endText.isBlank() ? null : instant(endText, "detail.endTime");
    Set<String> ids = new LinkedHashSet<>();
    JsonNode entities = detail.get("affectedEntities");
    if (entities != null && entities.isArray()) {
      for (JsonNode entity : entities) {
        String value = text(entity, "entityValue");
        if (value != null && INSTANCE_ID.matcher(value).matches()) {
          ids.add(value);
        }
      }
    }
    for (String resource : meta.resources()) {
      String tail = resource.substring(resource.lastIndexOf('/') + 1);
      if (INSTANCE_ID.matcher(tail).matches()) {
        ids.add(tail);
      } else if (INSTANCE_ID.matcher(resource).matches()) {
        ids.add(resource);
      }
    }
    if (ids.isEmpty()) {
      throw new InvalidEvent(
          "AWS Health event " + arn + " names no EC2 instance in affectedEntities or resources");
    }
    return new HealthScheduledChange(meta, arn, typeCode, start, end, List.copyOf(ids));
  }

  private static FleetEvent alarm(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String name = required(detail, "alarmName", "detail");
    JsonNode state = detail.get("state");
    if (state == null || !state.isObject()) {
      throw new InvalidEvent("detail field 'state' must be an object");
    }
    String value = required(state, "value", "detail.state");
    if (!ALARM_STATES.contains(value)) {
      throw new InvalidEvent(
          "detail.state.value '" + value + "' is not one of " + sorted(ALARM_STATES));
    }
    String stamp = text(state, "timestamp");
    Instant stateTime =
        stamp == null || stamp.isBlank() ? meta.time() : instant(stamp, "detail.state.timestamp");
    JsonNode previous = detail.get("previousState");
    String previousValue = previous == null ? null : text(previous, "value");
    JsonNode configuration = detail.path("configuration");
    var metrics = new ArrayList<AlarmMetric>();
    JsonNode list = configuration.get("metrics");
    if (list != null && list.isArray()) {
      for (JsonNode m : list) {
        JsonNode metric = m.path("metricStat").path("metric");
        var dims = new LinkedHashMap<String, String>();
        metric
            .path("dimensions")
            .properties()
            .forEach(e -> dims.put(e.getKey(), e.getValue().asText()));
        metrics.add(
            new AlarmMetric(
                text(m, "id"),
                text(metric, "namespace"),
                text(metric, "name"),
                Map.copyOf(dims),
                text(m.path("metricStat"), "stat"),
                text(m, "expression")));
      }
    }
    return new AlarmStateChange(
        meta,
        name,
        value,
        previousValue,
        stateTime,
        text(state, "reason"),
        text(configuration, "description"),
        List.copyOf(metrics));
  }

  static String instanceId(JsonNode detail) throws InvalidEvent {
    String id = required(detail, "instance-id", "detail");
    if (!INSTANCE_ID.matcher(id).matches()) {
      throw new InvalidEvent("detail.instance-id '" + id + "' is not an EC2 instance id");
    }
    return id;
  }

  static String required(JsonNode node, String field, String where) throws InvalidEvent {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new InvalidEvent(where + " field '" + field + "' is missing");
    }
    if (!value.isTextual() || value.asText().isBlank()) {
      throw new InvalidEvent(where + " field '" + field + "' must be a non-empty string");
    }
    return value.asText();
  }

  static String text(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value == null || value.isNull() || !value.isValueNode() ? null : value.asText();
  }

  /** RFC 3339 (EventBridge envelopes) or RFC 1123 ("Wed, 05 Apr 2023 12:00:00 GMT", AWS Health). */
  static Instant instant(String text, String what) throws InvalidEvent {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException ignored) {
      // fall through to the other accepted forms
    }
    try {
      return ZonedDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException ignored) {
      // fall through
    }
    try {
      // CloudWatch alarm state timestamps: "2026-01-05T10:15:30.123+0000"
      return ZonedDateTime.parse(text, COMPACT_OFFSET).toInstant();
    } catch (DateTimeParseException ignored) {
      // fall through
    }
    try {
      return ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw new InvalidEvent(what + " '" + text + "' is not an RFC 3339 or RFC 1123 timestamp");
    }
  }

  private static String sorted(Set<String> values) {
    return values.stream().sorted().toList().toString();
  }

  private static String firstLine(Exception e) {
    String message =
        e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    return message == null ? e.getClass().getSimpleName() : message.lines().findFirst().orElse("");
  }
}

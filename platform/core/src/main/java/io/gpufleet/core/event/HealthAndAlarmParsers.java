package io.gpufleet.core.event;

import static io.gpufleet.core.event.EventFields.echo;
import static io.gpufleet.core.event.EventFields.instant;
import static io.gpufleet.core.event.EventFields.lenientInstant;
import static io.gpufleet.core.event.EventFields.required;
import static io.gpufleet.core.event.EventFields.text;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.event.FleetEvent.AlarmMetric;
import io.gpufleet.core.event.FleetEvent.AlarmStateChange;
import io.gpufleet.core.event.FleetEvent.HealthScheduledChange;
import io.gpufleet.core.event.FleetEvent.Unsupported;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The parsers of the AWS Health and CloudWatch alarm kinds (registered in {@link EventDecoder}).
 */
final class HealthAndAlarmParsers {
  private static final Set<String> ALARM_STATES = Set.of("OK", "ALARM", "INSUFFICIENT_DATA");

  private HealthAndAlarmParsers() {}

  /**
   * Acts, like NTH and Karpenter, on EC2 scheduled changes only. Only the instances are required: a
   * missing {@code startTime} means act now, a missing {@code eventArn} falls back to the envelope
   * id, and an unreadable {@code endTime} is dropped (nothing depends on it).
   */
  static FleetEvent health(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String service = text(detail, "service");
    String category = text(detail, "eventTypeCategory");
    String typeCode = text(detail, "eventTypeCode");
    String arn = text(detail, "eventArn");
    if (!"EC2".equals(service) || !"scheduledChange".equals(category)) {
      return new Unsupported(
          meta, "AWS Health " + echo(service) + "/" + echo(category) + " events need no action");
    }
    if (arn == null || arn.isBlank()) {
      arn = meta.id();
    }
    String startText = text(detail, "startTime");
    Instant start =
        startText == null || startText.isBlank()
            ? null
            : lenientInstant(startText, "detail.startTime");
    Instant end = null;
    String endText = text(detail, "endTime");
    if (endText != null && !endText.isBlank()) {
      try {
        end = lenientInstant(endText, "detail.endTime");
      } catch (InvalidEvent ignored) {
        // not needed to act
      }
    }
    Set<String> ids = new LinkedHashSet<>();
    JsonNode entities = detail.get("affectedEntities");
    if (entities != null && entities.isArray()) {
      for (JsonNode entity : entities) {
        String value = text(entity, "entityValue");
        if (value == null) {
          continue;
        }
        // a bare id in the NTH/Karpenter samples, an instance ARN in AWS's retirement sample
        String tail = value.substring(value.lastIndexOf('/') + 1);
        if (EventFields.INSTANCE_ID.matcher(tail).matches()) {
          ids.add(tail);
        }
      }
    }
    for (String resource : meta.resources()) {
      String tail = resource.substring(resource.lastIndexOf('/') + 1);
      if (EventFields.INSTANCE_ID.matcher(tail).matches()) {
        ids.add(tail);
      } else if (EventFields.INSTANCE_ID.matcher(resource).matches()) {
        ids.add(resource);
      }
    }
    if (ids.isEmpty()) {
      throw new InvalidEvent(
          "AWS Health event "
              + echo(arn)
              + " names no EC2 instance in affectedEntities or resources");
    }
    return new HealthScheduledChange(meta, arn, typeCode, start, end, List.copyOf(ids));
  }

  static FleetEvent alarm(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String name = required(detail, "alarmName", "detail");
    JsonNode state = detail.get("state");
    if (state == null || !state.isObject()) {
      throw new InvalidEvent("detail field 'state' must be an object");
    }
    String value = required(state, "value", "detail.state");
    if (!ALARM_STATES.contains(value)) {
      throw new InvalidEvent(
          "detail.state.value " + echo(value) + " is not one of " + sorted(ALARM_STATES));
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

  private static String sorted(Set<String> values) {
    return values.stream().sorted().toList().toString();
  }
}

package io.gpufleet.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The payload EventBridge Scheduler sends (template.yaml builds it from the schedule's context
 * attributes {@code <aws.scheduler.schedule-arn>}, {@code <aws.scheduler.scheduled-time>}, {@code
 * <aws.scheduler.execution-id>}, {@code <aws.scheduler.attempt-number>}) in the project's envelope
 * shape, so it sorts and logs like every other event:
 *
 * <pre>
 * {"version":"0","id":"&lt;execution-id&gt;","detail-type":"GPU Fleet Schedule Tick",
 *  "source":"gpufleet.scheduler","time":"&lt;scheduled-time&gt;","resources":["&lt;schedule-arn&gt;"],
 *  "detail":{"scheduleArn":"...","scheduledTime":"...","attemptNumber":"1","dryRun":false}}
 * </pre>
 */
public record ScheduleTick(
    String id, String scheduleArn, Instant scheduledTime, int attempt, boolean dryRun) {
  public static final String DETAIL_TYPE = "GPU Fleet Schedule Tick";
  public static final String SOURCE = "gpufleet.scheduler";

  /** The dedupe key: one tick of one schedule. */
  public String key() {
    return scheduleArn + "@" + scheduledTime;
  }

  /** A decoded tick or the precise reason the payload is not one. */
  public sealed interface Decoded {}

  public record Ok(ScheduleTick tick) implements Decoded {}

  public record Rejected(String reason) implements Decoded {}

  private static String echo(String text) {
    return io.gpufleet.core.event.EventDecoder.echo(text);
  }

  public static Decoded decode(byte[] payload) {
    if (payload == null || payload.length == 0) {
      return new Rejected("empty payload");
    }
    JsonNode root;
    try {
      root = Json.readPayload(payload);
    } catch (java.io.IOException e) {
      return new Rejected("not JSON: " + echo(e.getMessage().lines().findFirst().orElse("")));
    }
    if (root == null || !root.isObject()) {
      return new Rejected("payload is not a JSON object");
    }
    if (!DETAIL_TYPE.equals(root.path("detail-type").asText())
        || !SOURCE.equals(root.path("source").asText())) {
      return new Rejected(
          "not a schedule tick: source "
              + echo(root.path("source").asText())
              + " detail-type "
              + echo(root.path("detail-type").asText())
              + " (expected "
              + SOURCE
              + " / "
              + DETAIL_TYPE
              + ")");
    }
    JsonNode d = root.path("detail");
    String arn = d.path("scheduleArn").asText("");
    if (!arn.startsWith("arn:") || !arn.contains(":scheduler:")) {
      return new Rejected(
          "detail.scheduleArn " + echo(arn) + " is not an EventBridge Scheduler ARN");
    }
    Instant scheduled;
    try {
      scheduled = Instant.parse(d.path("scheduledTime").asText(""));
    } catch (DateTimeParseException e) {
      return new Rejected(
          "detail.scheduledTime "
              + echo(d.path("scheduledTime").asText())
              + " is not an RFC 3339 time");
    }
    int attempt = 1;
    String attemptText = d.path("attemptNumber").asText("1");
    try {
      attempt = Integer.parseInt(attemptText);
    } catch (NumberFormatException e) {
      return new Rejected("detail.attemptNumber " + echo(attemptText) + " is not a number");
    }
    JsonNode dry = d.path("dryRun");
    if (!dry.isMissingNode() && !dry.isNull() && !dry.isBoolean()) {
      return new Rejected("detail.dryRun must be true or false");
    }
    return new Ok(
        new ScheduleTick(
            root.path("id").asText(null), arn, scheduled, attempt, dry.asBoolean(false)));
  }
}

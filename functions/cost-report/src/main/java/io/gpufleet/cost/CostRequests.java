package io.gpufleet.cost;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decodes a trigger payload. The schedules send {@code {"action":"report","window":"last-day",
 * "scheduledTime":"<aws.scheduler.scheduled-time>"}} or {@code {"action":"snapshot",
 * "scheduledTime":...}}; a direct invoke may send {@code {}} (the default window) or any of those
 * fields. Nothing else starts a report: a field outside {@code action}, {@code window} and {@code
 * scheduledTime} (an EventBridge event, a {@code detail}, a typo), a value that is not a string, or
 * data after the JSON document is rejected before anything is read or written. Windows are anchored
 * at the scheduled time, so a repeated delivery of one schedule run writes the same report keys.
 */
public final class CostRequests {
  /** The only fields of the documented payloads. */
  public static final Set<String> FIELDS = Set.of("action", "window", "scheduledTime");

  private CostRequests() {}

  public static CostReportService.Request decode(byte[] payload) {
    JsonNode root;
    try {
      root = payload.length == 0 ? Json.MAPPER.createObjectNode() : Json.readPayload(payload);
    } catch (IOException e) {
      throw new ConfigException(
          "payload is not JSON: "
              + EventDecoder.echo(e.getMessage().lines().findFirst().orElse("")));
    }
    if (root == null || root.isNull() || root.isMissingNode()) {
      root = Json.MAPPER.createObjectNode();
    }
    if (!root.isObject()) {
      throw new ConfigException("payload must be a JSON object, got " + root.getNodeType());
    }
    var unknown = new TreeSet<String>();
    root.fieldNames().forEachRemaining(f -> unknown.add(f));
    unknown.removeAll(FIELDS);
    if (!unknown.isEmpty()) {
      throw new ConfigException(
          "not a cost report request: unknown field(s) "
              + EventDecoder.echo(String.join(", ", unknown))
              + " (a request has only "
              + new TreeSet<>(FIELDS)
              + ")");
    }
    for (String f : FIELDS) {
      JsonNode v = root.get(f);
      if (v != null && !v.isNull() && !v.isTextual()) {
        throw new ConfigException("field '" + f + "' must be a string, got " + v.getNodeType());
      }
    }
    String action = root.path("action").asText("report");
    boolean snapshot =
        switch (action) {
          case "report", "" -> false;
          case "snapshot" -> true;
          default ->
              throw new ConfigException(
                  "action " + EventDecoder.echo(action) + " is not report or snapshot");
        };
    String window = root.hasNonNull("window") ? root.get("window").asText() : null;
    if (window != null && window.length() > 64) {
      throw new ConfigException("window " + EventDecoder.echo(window) + " is not a report window");
    }
    Instant anchor = null;
    String scheduled = root.path("scheduledTime").asText("");
    if (!scheduled.isBlank()) {
      try {
        anchor = Instant.parse(scheduled);
      } catch (DateTimeParseException e) {
        throw new ConfigException(
            "scheduledTime " + EventDecoder.echo(scheduled) + " is not an ISO-8601 instant");
      }
    }
    return new CostReportService.Request(window, anchor, snapshot);
  }
}

package io.gpufleet.cost;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Decodes a trigger payload. The schedules send {@code {"action":"report","window":"last-day",
 * "scheduledTime":"<aws.scheduler.scheduled-time>"}} or {@code {"action":"snapshot"}}; a direct
 * invoke may send {@code {}} (the default window). Windows are anchored at the scheduled time, so a
 * repeated delivery of one schedule run writes the same report keys.
 */
public final class CostRequests {
  private CostRequests() {}

  public static CostReportService.Request decode(byte[] payload) {
    JsonNode root;
    try {
      root = payload.length == 0 ? Json.MAPPER.createObjectNode() : Json.MAPPER.readTree(payload);
    } catch (IOException e) {
      throw new ConfigException(
          "payload is not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (root == null || root.isNull() || root.isMissingNode()) {
      root = Json.MAPPER.createObjectNode();
    }
    if (!root.isObject()) {
      throw new ConfigException("payload must be a JSON object, got " + root.getNodeType());
    }
    String action = root.path("action").asText("report");
    boolean snapshot =
        switch (action) {
          case "report", "" -> false;
          case "snapshot" -> true;
          default -> throw new ConfigException("action '" + action + "' is not report or snapshot");
        };
    String window = root.hasNonNull("window") ? root.get("window").asText() : null;
    Instant anchor = null;
    String scheduled = root.path("scheduledTime").asText("");
    if (!scheduled.isBlank()) {
      try {
        anchor = Instant.parse(scheduled);
      } catch (DateTimeParseException e) {
        throw new ConfigException("scheduledTime '" + scheduled + "' is not an ISO-8601 instant");
      }
    }
    return new CostReportService.Request(window, anchor, snapshot);
  }
}

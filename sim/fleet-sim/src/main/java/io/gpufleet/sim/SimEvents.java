package io.gpufleet.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** Sample events replayed in simulated time. */
public final class SimEvents {
  private SimEvents() {}

  /**
   * The event moved to {@code now} (an AWS Health start two hours later, its end four), shape and
   * every other field unchanged, so a sample's two-minute notice starts when it is replayed.
   */
  public static byte[] rebase(JsonNode event, Instant now) throws IOException {
    var copy = (ObjectNode) event.deepCopy();
    copy.put("time", now.truncatedTo(ChronoUnit.SECONDS).toString());
    Instant was = parsedOrNull(event.path("time").asText(""));
    var original = copy.path("detail");
    // keep how far ahead of the event a Capacity Reservation's termination or a Capacity Block's
    // end lies
    for (String field : new String[] {"instance-termination-time", "end-date"}) {
      Instant at = parsedOrNull(original.path(field).asText(""));
      if (was != null && at != null) {
        ((ObjectNode) original)
            .put(
                field,
                now.truncatedTo(ChronoUnit.SECONDS).plus(Duration.between(was, at)).toString());
      }
    }
    if (copy.path("detail").has("startTime")) {
      var rfc1123 = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
      var detail = (ObjectNode) copy.get("detail");
      detail.put("startTime", rfc1123.format(now.plus(Duration.ofHours(2))));
      detail.put("endTime", rfc1123.format(now.plus(Duration.ofHours(4))));
    }
    return Json.MAPPER.writeValueAsBytes(copy);
  }

  private static Instant parsedOrNull(String text) {
    try {
      return text.isBlank() ? null : Instant.parse(text);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }
}

package io.gpufleet.drain;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The node annotation that makes at-least-once delivery safe: which event claimed the node, whether
 * its handling is done, and until when an in-flight claim holds. A repeated event id finds it and
 * does nothing; a retry after a crash finds an expired claim and takes over.
 */
public record DrainMarker(String eventId, String kind, State state, Instant until) {
  public static final String ANNOTATION = "gpufleet.io/drain";

  public enum State {
    IN_PROGRESS,
    DONE,
    FAILED
  }

  public static Optional<DrainMarker> read(Map<String, String> annotations) {
    String raw = annotations == null ? null : annotations.get(ANNOTATION);
    if (raw == null) {
      return Optional.empty();
    }
    try {
      JsonNode n = Json.MAPPER.readTree(raw);
      return Optional.of(
          new DrainMarker(
              n.path("event").asText(),
              n.path("kind").asText(),
              State.valueOf(n.path("state").asText()),
              Instant.parse(n.path("until").asText())));
    } catch (Exception e) {
      // Someone edited it by hand: treat as no claim rather than blocking drains forever.
      return Optional.empty();
    }
  }

  /** True when this marker means the same event must not be handled again now. */
  public boolean blocks(String otherEventId, Instant now) {
    if (!eventId.equals(otherEventId)) {
      return false;
    }
    return switch (state) {
      case DONE -> true;
      case IN_PROGRESS -> now.isBefore(until);
      case FAILED -> false;
    };
  }

  public String toJson() {
    var m = new LinkedHashMap<String, String>();
    m.put("event", eventId);
    m.put("kind", kind);
    m.put("state", state.name());
    m.put("until", until.toString());
    return Json.write(m);
  }
}

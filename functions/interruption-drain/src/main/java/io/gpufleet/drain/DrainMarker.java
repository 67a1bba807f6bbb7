package io.gpufleet.drain;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node annotation that makes at-least-once delivery safe: which event claimed the node, whether
 * its handling is done, and until when an in-flight claim holds. A repeated event id finds it and
 * does nothing; a retry after a crash finds an expired claim and takes over.
 */
public record DrainMarker(
    String eventId, String kind, State state, Instant until, List<String> recent) {
  public static final String ANNOTATION = "gpufleet.io/drain";

  /**
   * How many earlier handled event ids a node remembers besides the current one (an ITN, a
   * rebalance, the same ITN again must not drain twice); bounded so the annotation stays small.
   */
  public static final int REMEMBERED = 16;

  public DrainMarker {
    recent = recent == null ? List.of() : List.copyOf(recent);
  }

  public DrainMarker(String eventId, String kind, State state, Instant until) {
    this(eventId, kind, state, until, List.of());
  }

  /**
   * The marker that replaces this one when another event claims the node: this event joins the
   * remembered ids if it was handled, newest first, at most {@link #REMEMBERED}.
   */
  public DrainMarker next(String newEventId, String newKind, State newState, Instant newUntil) {
    var ids = new ArrayList<String>();
    if (state == State.DONE) {
      ids.add(eventId);
    }
    for (String id : recent) {
      if (!ids.contains(id)) {
        ids.add(id);
      }
    }
    ids.remove(newEventId);
    return new DrainMarker(
        newEventId, newKind, newState, newUntil, ids.subList(0, Math.min(ids.size(), REMEMBERED)));
  }

  /** The same claim in another state, remembering the same ids. */
  public DrainMarker with(State newState) {
    return new DrainMarker(eventId, kind, newState, until, recent);
  }

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
      var recent = new ArrayList<String>();
      n.path("recent").forEach(r -> recent.add(r.asText()));
      return Optional.of(
          new DrainMarker(
              n.path("event").asText(),
              n.path("kind").asText(),
              State.valueOf(n.path("state").asText()),
              Instant.parse(n.path("until").asText()),
              recent.subList(0, Math.min(recent.size(), REMEMBERED))));
    } catch (Exception e) {
      // Someone edited it by hand: treat as no claim rather than blocking drains forever.
      return Optional.empty();
    }
  }

  /** True when this marker means the same event must not be handled again now. */
  public boolean blocks(String otherEventId, Instant now) {
    if (recent.contains(otherEventId)) {
      return true;
    }
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
    var m = new LinkedHashMap<String, Object>();
    m.put("event", eventId);
    m.put("kind", kind);
    m.put("state", state.name());
    m.put("until", until.toString());
    if (!recent.isEmpty()) {
      m.put("recent", recent);
    }
    return Json.write(m);
  }
}

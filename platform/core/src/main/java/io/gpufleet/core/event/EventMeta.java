package io.gpufleet.core.event;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The EventBridge envelope fields every event carries; {@code id} is the dedupe key. {@code
 * caveats} say what the decoder had to assume to act on the event (an unreadable date replaced by
 * the documented timing, a lifecycle action that cannot be completed); the outcome repeats them.
 */
public record EventMeta(
    String id,
    String source,
    String detailType,
    String account,
    String region,
    Instant time,
    List<String> resources,
    List<String> caveats) {

  public EventMeta {
    caveats = caveats == null ? List.of() : List.copyOf(caveats);
  }

  public EventMeta(
      String id,
      String source,
      String detailType,
      String account,
      String region,
      Instant time,
      List<String> resources) {
    this(id, source, detailType, account, region, time, resources, List.of());
  }

  /** The same envelope with one more caveat. */
  public EventMeta withCaveat(String caveat) {
    var all = new ArrayList<>(caveats);
    all.add(caveat);
    return new EventMeta(id, source, detailType, account, region, time, resources, all);
  }
}

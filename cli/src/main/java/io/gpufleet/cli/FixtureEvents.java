package io.gpufleet.cli;

import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.drain.model.DrainKind;
import java.time.Duration;
import java.time.Instant;

/** Event envelopes for benchmarks, built the way EventBridge delivers them. */
final class FixtureEvents {
  private FixtureEvents() {}

  static String spotJson(String id, String instance, Instant time) {
    return DrainCommand.syntheticEvent(
            DrainKind.SPOT_INTERRUPTION, instance, time, Duration.ofSeconds(120))
        .replaceFirst("\"id\":\"cli-[^\"]+\"", "\"id\":\"" + id + "\"");
  }

  static FleetEvent spot(String id, String instance, Instant time) {
    return decode(spotJson(id, instance, time));
  }

  static FleetEvent event(DrainKind kind, String id, String instance, Instant time) {
    return decode(
        DrainCommand.syntheticEvent(kind, instance, time, Duration.ofSeconds(120))
            .replaceFirst("\"id\":\"cli-[^\"]+\"", "\"id\":\"" + id + "\""));
  }

  private static FleetEvent decode(String json) {
    if (new EventDecoder().decodeString(json) instanceof DecodeResult.Decoded d) {
      return d.event();
    }
    throw new IllegalStateException("benchmark event did not decode: " + json);
  }
}

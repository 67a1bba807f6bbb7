package io.gpufleet.core.event;

/** Either a decoded event or the precise reason a payload was rejected. */
public sealed interface DecodeResult {
  record Decoded(FleetEvent event) implements DecodeResult {}

  /** A payload that cannot be understood. {@code eventId} is set when the envelope was readable. */
  record Rejected(String reason, String eventId) implements DecodeResult {}
}

package io.gpufleet.core.event;

/** Either a decoded event or the precise reason a payload was rejected. */
public sealed interface DecodeResult {
  record Decoded(FleetEvent event) implements DecodeResult {}

  /**
   * A payload that cannot be acted on. {@code eventId} and {@code region} are set when the envelope
   * carried them.
   */
  record Rejected(String reason, String eventId, String region) implements DecodeResult {
    public Rejected(String reason, String eventId) {
      this(reason, eventId, null);
    }
  }
}

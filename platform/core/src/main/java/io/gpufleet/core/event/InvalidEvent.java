package io.gpufleet.core.event;

/** Thrown by a detail parser when a required field is missing or malformed. */
final class InvalidEvent extends Exception {
  InvalidEvent(String message) {
    super(message);
  }
}

package io.gpufleet.drain;

import java.time.Duration;

/** Hands a message back to this function after a delay (a drain that outlives one invocation). */
public interface ContinuationPort {
  /** Delivers {@code body} to this function no sooner than {@code delay} from now. */
  void schedule(String body, Duration delay);

  /** No continuation configured: a drain ends with the invocation that started it. */
  ContinuationPort NONE =
      new ContinuationPort() {
        @Override
        public void schedule(String body, Duration delay) {
          throw new IllegalStateException("no continuation queue configured");
        }

        @Override
        public boolean available() {
          return false;
        }
      };

  default boolean available() {
    return true;
  }
}

package io.gpufleet.drain.model;

/** The API server's answer to one policy/v1 Eviction. */
public sealed interface EvictionResult {
  /** 201: the pod is being deleted. */
  record Evicted() implements EvictionResult {}

  /** 404, or the UID precondition failed: the pod we meant is already gone. */
  record Gone() implements EvictionResult {}

  /** 429: a PodDisruptionBudget allows no disruption right now. */
  record Blocked(String message) implements EvictionResult {}

  /** 500 "more than one PodDisruptionBudget": a configuration error, retrying cannot help. */
  record MultiplePdb(String message) implements EvictionResult {}

  /** Anything else; {@code retryable} for 5xx and transport errors. */
  record Failed(int code, String message, boolean retryable) implements EvictionResult {}
}

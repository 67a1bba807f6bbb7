package io.gpufleet.drain.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * The checkpoint timeline of one pod that opted in (annotation {@code gpufleet.io/checkpoint}):
 * when it was told of the interruption, when the drain saw its {@code gpufleet.io/checkpoint-done}
 * ({@link #NOT_REPORTED} when it never did) and the value it wrote, the latest moment its eviction
 * could wait for (eviction plus grace still within the deadline; null for kinds without one) and
 * when its eviction was sent (null when it was not evicted).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CheckpointReport(
    String pod,
    String wants,
    Instant toldAt,
    String checkpointDone,
    String reported,
    Instant latestEviction,
    Instant evictedAt,
    String note) {

  public static final String NOT_REPORTED = "not reported";

  /** True when the workload reported its checkpoint done before it was evicted. */
  public boolean made() {
    return !NOT_REPORTED.equals(checkpointDone);
  }
}

package io.gpufleet.schedule.model;

import java.time.Instant;
import java.util.List;

/**
 * One run of the schedule: the window judged, every write with its before/after (or what a dry run
 * would write), and what was deliberately left alone.
 */
public record ScheduleOutcome(
    Status status,
    String cluster,
    String scheduleArn,
    Instant scheduledTime,
    Instant evaluatedAt,
    String timeZone,
    String localTime,
    String window,
    String windowReason,
    boolean dryRun,
    int writes,
    int failed,
    List<Change> changes,
    List<Change> notices,
    String message,
    long durationMs,
    String guardrails) {

  public enum Status {
    /** Every wanted write was made (or none was needed). */
    RECONCILED,
    /** Nothing written; {@code changes} is the full diff a real run would make. */
    DRY_RUN,
    /** Some writes failed; the next run retries them. */
    PARTIAL,
    /** The same schedule tick (schedule ARN + scheduled time) was already handled. */
    DUPLICATE,
    /** A newer tick of the same schedule was already handled; this late delivery is moot. */
    SUPERSEDED,
    /** The policy could not be read or is invalid: nothing written. */
    INVALID_POLICY,
    /**
     * The run would change more objects than the guardrail allows (SCHEDULE_MAX_CHANGES): nothing
     * written; {@code changes} lists what it would have written.
     */
    GUARDRAIL,
    /** The payload is not a schedule tick. */
    REJECTED
  }

  public static ScheduleOutcome simple(
      Status status, String cluster, String arn, Instant scheduled, Instant now, String message) {
    return new ScheduleOutcome(
        status, cluster, arn, scheduled, now, null, null, null, null, false, 0, 0, List.of(),
        List.of(), message, 0, null);
  }
}

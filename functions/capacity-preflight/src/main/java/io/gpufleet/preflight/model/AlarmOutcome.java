package io.gpufleet.preflight.model;

import java.util.List;

/**
 * What the function did about one CloudWatch alarm state change. {@code increase} says whether a
 * quota increase was requested and why (not).
 */
public record AlarmOutcome(
    String eventId,
    String alarmName,
    String region,
    String quota,
    String quotaCode,
    Status status,
    Double usageVcpu,
    Double quotaVcpu,
    Double percent,
    List<String> plansAtRisk,
    List<String> poolsAtRisk,
    String increase,
    String message) {

  public enum Status {
    HANDLED,
    /** The same state change was handled before (at-least-once delivery). */
    ALREADY_HANDLED,
    /** Not an ALARM transition (back to OK, or insufficient data): nothing to do. */
    IGNORED,
    REJECTED
  }

  public static AlarmOutcome simple(
      String eventId, String alarmName, String region, Status status, String message) {
    return new AlarmOutcome(
        eventId, alarmName, region, null, null, status, null, null, null, List.of(), List.of(),
        null, message);
  }
}

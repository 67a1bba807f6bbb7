package io.gpufleet.preflight.model;

/**
 * The answer to one invocation: a preflight run (scheduled or direct) or an alarm; exactly one of
 * {@code report} / {@code alarm} is set unless the payload was rejected or a repeat.
 */
public record RunOutcome(
    String function,
    String eventId,
    String status,
    String message,
    String reportUri,
    PreflightReport report,
    AlarmOutcome alarm) {

  public static final String REPORTED = "REPORTED";
  public static final String ALREADY_HANDLED = "ALREADY_HANDLED";
  public static final String REJECTED = "REJECTED";
  public static final String IGNORED = "IGNORED";

  public static RunOutcome of(String eventId, String status, String message) {
    return new RunOutcome("capacity-preflight", eventId, status, message, null, null, null);
  }
}

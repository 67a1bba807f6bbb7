package io.gpufleet.schedule.wiring;

import io.gpufleet.core.lambda.LocalInvoker;

/**
 * Runs the Lambda handler once outside Lambda: {@code java -jar disruption-schedule-lambda.jar
 * EVENT.json} (or the payload on standard input), configured by the same environment variables.
 */
public final class LocalInvoke {
  private LocalInvoke() {}

  public static void main(String[] args) throws Exception {
    LocalInvoker.run(args, "disruption-schedule", 170_000, ScheduleHandler::new);
  }
}

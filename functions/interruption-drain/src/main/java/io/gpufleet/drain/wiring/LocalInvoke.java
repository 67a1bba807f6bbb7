package io.gpufleet.drain.wiring;

import io.gpufleet.core.lambda.LocalInvoker;

/**
 * Runs the Lambda handler once outside Lambda: {@code java -jar interruption-drain-lambda.jar
 * EVENT.json} (or the payload on standard input), configured by the same environment variables.
 */
public final class LocalInvoke {
  private LocalInvoke() {}

  public static void main(String[] args) throws Exception {
    LocalInvoker.run(args, "interruption-drain", 170_000, DrainHandler::new);
  }
}

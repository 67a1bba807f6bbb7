package io.gpufleet.preflight.wiring;

import io.gpufleet.core.lambda.LocalInvoker;

/**
 * Runs the Lambda handler once outside Lambda: {@code java -jar capacity-preflight-lambda.jar
 * EVENT.json} (or the payload on standard input), configured by the same environment variables.
 */
public final class LocalInvoke {
  private LocalInvoke() {}

  public static void main(String[] args) throws Exception {
    LocalInvoker.run(args, "capacity-preflight", 300_000, PreflightHandler::new);
  }
}

package io.gpufleet.preflight.wiring;

import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.lambda.LambdaEntry;
import io.gpufleet.core.lambda.LambdaHandler;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.preflight.PreflightFunction;

/**
 * Lambda entry: the payload (an alarm event or a run request, which the function tells apart and
 * words its own rejections for) to the function, answered with its outcome.
 */
public final class PreflightHandler extends LambdaHandler {
  public PreflightHandler() {
    this(InitWarmup.around(PreflightPriming.warmup(), PreflightWiring::fromEnvironment));
  }

  private PreflightHandler(PreflightWiring.Wired wired) {
    super(entry(wired.function(), wired.metrics()));
    PreflightPriming.register(wired);
  }

  public PreflightHandler(PreflightFunction function, MetricsPort metrics) {
    super(entry(function, metrics));
  }

  static LambdaEntry<byte[]> entry(PreflightFunction function, MetricsPort metrics) {
    return LambdaEntry.of(
        payload -> payload, (payload, context) -> function.handle(payload), metrics);
  }
}

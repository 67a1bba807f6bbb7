package io.gpufleet.preflight.wiring;

import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.lambda.LambdaEntry;
import io.gpufleet.core.lambda.LambdaHandler;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.preflight.PreflightFunction;

/**
 * Lambda entry: the payload (an alarm event or a run request, which the function tells apart and
 * words its own rejections for) to the function, answered with its outcome.
 */
public final class PreflightHandler extends LambdaHandler {
  public PreflightHandler() {
    // wired at init with the warm-up beside it; wired again when the settings document changes
    super(
        SettingsDocument.rewiring(
            () ->
                primed(
                    InitWarmup.around(PreflightPriming.warmup(), PreflightWiring::fromEnvironment)),
            () -> entry(PreflightWiring.fromEnvironment()),
            LambdaEntry::close));
  }

  private static LambdaEntry<byte[]> primed(PreflightWiring.Wired wired) {
    PreflightPriming.register(wired);
    return entry(wired);
  }

  private static LambdaEntry<byte[]> entry(PreflightWiring.Wired wired) {
    return entry(wired.function(), wired.metrics());
  }

  public PreflightHandler(PreflightFunction function, MetricsPort metrics) {
    super(entry(function, metrics));
  }

  static LambdaEntry<byte[]> entry(PreflightFunction function, MetricsPort metrics) {
    return LambdaEntry.of(
        payload -> payload, (payload, context) -> function.handle(payload), metrics);
  }
}

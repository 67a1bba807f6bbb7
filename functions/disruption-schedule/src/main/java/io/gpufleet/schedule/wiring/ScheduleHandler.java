package io.gpufleet.schedule.wiring;

import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.lambda.LambdaEntry;
import io.gpufleet.core.lambda.LambdaHandler;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.schedule.SchedulePriming;
import io.gpufleet.schedule.ScheduleService;
import io.gpufleet.schedule.ScheduleTick;

/** Lambda entry: decode the scheduler tick, run the reconcile, answer with the outcome. */
public final class ScheduleHandler extends LambdaHandler {
  public ScheduleHandler() {
    // read-only paths loaded at init beside the wiring (and again before a SnapStart snapshot)
    this(InitWarmup.around(SchedulePriming.warmup(), ScheduleWiring::fromEnvironment));
  }

  private ScheduleHandler(ScheduleWiring.Wired wired) {
    super(entry(wired.service(), wired.metrics()).closing(wired.client()));
    SchedulePriming.register();
  }

  public ScheduleHandler(ScheduleService service, MetricsPort metrics) {
    super(entry(service, metrics));
  }

  static LambdaEntry<ScheduleTick.Decoded> entry(ScheduleService service, MetricsPort metrics) {
    return LambdaEntry.of(ScheduleTick::decode, (tick, context) -> service.handle(tick), metrics);
  }
}

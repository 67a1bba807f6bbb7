package io.gpufleet.drain.wiring;

import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.lambda.LambdaEntry;
import io.gpufleet.core.lambda.LambdaHandler;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.drain.DrainMetrics;
import io.gpufleet.drain.DrainService;
import java.time.Clock;
import java.time.Duration;

/**
 * Lambda entry: an EventBridge event or an SQS batch of them ({@link DrainInvocations}), drained by
 * the service, answered with the outcomes (a batch: with {@code batchItemFailures}).
 */
public final class DrainHandler extends LambdaHandler {
  static final Duration REPORT_RESERVE = Duration.ofSeconds(5);

  /** EMF metric: an event this invocation could not handle (it throws, so Lambda retries). */
  static final io.gpufleet.core.outcome.Metric EVENTS_FAILED = DrainMetrics.EVENTS_FAILED;

  public DrainHandler() {
    // client-independent warm-up on a second thread while this one wires (both done on return);
    // wired again when the settings document changes
    super(
        SettingsDocument.rewiring(
            () -> primed(InitWarmup.around(DrainWarmup.steps(), DrainPriming::wire)),
            () -> entry(DrainWiring.fromEnvironment()),
            LambdaEntry::close));
  }

  private static LambdaEntry<DrainInvocations.Input> primed(DrainWiring.Wired wired) {
    DrainPriming.register();
    return entry(wired);
  }

  private static LambdaEntry<DrainInvocations.Input> entry(DrainWiring.Wired wired) {
    return new DrainInvocations(
            wired.service(), wired.metrics(), Clock.systemUTC(), wired.accounts())
        .entry()
        .closing(wired.client());
  }

  public DrainHandler(DrainService service, MetricsPort metrics, Clock clock) {
    super(entry(service, metrics, clock));
  }

  static LambdaEntry<DrainInvocations.Input> entry(
      DrainService service, MetricsPort metrics, Clock clock) {
    return new DrainInvocations(service, metrics, clock).entry();
  }
}

package io.gpufleet.cost.wiring;

import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.lambda.LambdaEntry;
import io.gpufleet.core.lambda.LambdaHandler;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.cost.CostPriming;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporting;
import io.gpufleet.cost.CostRequests;
import io.gpufleet.cost.model.CostOutcome;

/**
 * Lambda entry: decode the schedule's payload, run the service, answer with the outcome. A payload
 * (or window) the service cannot take is answered with a reported REJECTED outcome, not retried.
 */
public final class CostHandler extends LambdaHandler {
  public CostHandler() {
    this(InitWarmup.around(CostPriming.warmup(), CostWiring::fromEnvironment));
  }

  private CostHandler(CostWiring.Wired w) {
    super(entry(w.service(), w.metrics(), w.reporter(), w.cluster()).closing(w.client()));
    CostPriming.register();
  }

  public CostHandler(
      CostReportService service,
      MetricsPort metrics,
      OutcomeReporter<CostReporting.Run> reporter,
      String cluster) {
    super(entry(service, metrics, reporter, cluster));
  }

  static LambdaEntry<CostReportService.Request> entry(
      CostReportService service,
      MetricsPort metrics,
      OutcomeReporter<CostReporting.Run> reporter,
      String cluster) {
    return LambdaEntry.of(
            CostRequests::decode,
            (request, context) -> service.run(request, CostReportService.Progress.NONE),
            metrics)
        .rejecting(
            e ->
                reporter
                    .report(CostReporting.Run.of(CostOutcome.rejected(cluster, e.getMessage())))
                    .outcome());
  }
}

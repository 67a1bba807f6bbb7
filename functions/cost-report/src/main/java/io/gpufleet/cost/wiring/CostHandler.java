package io.gpufleet.cost.wiring;

import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.lambda.LambdaEntry;
import io.gpufleet.core.lambda.LambdaHandler;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.cost.CostPriming;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporting;
import io.gpufleet.cost.CostRequests;
import io.gpufleet.cost.k8s.CostClusterAdapter;
import io.gpufleet.cost.model.CostOutcome;
import java.util.ArrayList;
import java.util.List;

/**
 * Lambda entry: decode the schedule's payload, run the service, answer with the outcome. A payload
 * (or window) the service cannot take is answered with a reported REJECTED outcome, not retried.
 */
public final class CostHandler extends LambdaHandler {
  public CostHandler() {
    // wired at init with the warm-up beside it; wired again when the settings document changes
    super(
        SettingsDocument.rewiring(
            () -> primed(InitWarmup.around(warmup(), CostWiring::fromEnvironment)),
            () -> entry(CostWiring.fromEnvironment()),
            LambdaEntry::close));
  }

  private static LambdaEntry<CostReportService.Request> primed(CostWiring.Wired w) {
    CostPriming.register();
    return entry(w);
  }

  private static LambdaEntry<CostReportService.Request> entry(CostWiring.Wired w) {
    return entry(w.service(), w.metrics(), w.reporter(), w.cluster()).closing(w.client());
  }

  public CostHandler(
      CostReportService service,
      MetricsPort metrics,
      OutcomeReporter<CostReporting.Run> reporter,
      String cluster) {
    super(entry(service, metrics, reporter, cluster));
  }

  /**
   * INIT's warm-up steps, in the order the wiring and then the first event need them: the signing
   * path every AWS call takes (credentials chain, HTTP client, SigV4; dummy keys, no network),
   * which the wiring's EKS DescribeCluster meets first; the Kubernetes client's JSON mapper with
   * the untyped node and pod lists, which the wiring's client and then the first reads need; then
   * the report's ({@link CostPriming#warmup()}).
   */
  static List<Runnable> warmup() {
    var steps = new ArrayList<Runnable>();
    steps.add(S3Rest::prime);
    steps.add(() -> CostClusterAdapter.prime(KubeClients.serialization()));
    steps.addAll(CostPriming.warmup());
    return steps;
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

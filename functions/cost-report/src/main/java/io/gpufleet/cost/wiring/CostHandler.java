package io.gpufleet.cost.wiring;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.cost.CostPriming;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporter;
import io.gpufleet.cost.CostRequests;
import io.gpufleet.cost.model.CostOutcome;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/** Lambda entry: decode the schedule's payload, run the service, answer the outcome, flush. */
public final class CostHandler implements RequestStreamHandler {
  private final CostReportService service;
  private final MetricsPort metrics;
  private final CostReporter reporter;
  private final String cluster;

  public CostHandler() {
    this(InitWarmup.around(CostPriming.warmup(), CostWiring::fromEnvironment));
    CostPriming.register();
  }

  private CostHandler(CostWiring.Wired w) {
    this(w.service(), w.metrics(), w.reporter(), w.cluster());
  }

  public CostHandler(
      CostReportService service, MetricsPort metrics, CostReporter reporter, String cluster) {
    this.service = service;
    this.metrics = metrics;
    this.reporter = reporter;
    this.cluster = cluster;
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    byte[] payload = input.readAllBytes();
    try {
      CostOutcome outcome =
          PowertoolsLogging.withLogging(
              context,
              () -> {
                try {
                  return service.run(CostRequests.decode(payload), CostReportService.Progress.NONE);
                } catch (ConfigException e) {
                  var rejected = CostOutcome.rejected(cluster, e.getMessage());
                  reporter.report(rejected, null);
                  return rejected;
                }
              });
      output.write(Json.MAPPER.writeValueAsBytes(outcome));
    } finally {
      metrics.flush();
    }
  }
}

package io.gpufleet.schedule.wiring;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.schedule.SchedulePriming;
import io.gpufleet.schedule.ScheduleService;
import io.gpufleet.schedule.ScheduleTick;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/** Lambda entry: decode the scheduler tick, run the reconcile, answer with the outcome, flush. */
public final class ScheduleHandler implements RequestStreamHandler, AutoCloseable {
  private final ScheduleService service;
  private final MetricsPort metrics;
  private final AutoCloseable resources;

  public ScheduleHandler() {
    // read-only paths loaded at init beside the wiring (and again before a SnapStart snapshot)
    this(InitWarmup.around(SchedulePriming.warmup(), ScheduleWiring::fromEnvironment));
    SchedulePriming.register();
  }

  private ScheduleHandler(ScheduleWiring.Wired wired) {
    this(wired.service(), wired.metrics(), wired.client());
  }

  public ScheduleHandler(ScheduleService service, MetricsPort metrics) {
    this(service, metrics, null);
  }

  private ScheduleHandler(ScheduleService service, MetricsPort metrics, AutoCloseable resources) {
    this.service = service;
    this.metrics = metrics;
    this.resources = resources;
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    byte[] payload = input.readAllBytes();
    try {
      var outcome =
          PowertoolsLogging.withLogging(
              context, () -> service.handle(ScheduleTick.decode(payload)));
      output.write(Json.MAPPER.writeValueAsBytes(outcome));
    } finally {
      metrics.flush();
    }
  }

  /** One-shot local runs only: closes the cluster client so the JVM exits promptly. */
  @Override
  public void close() {
    if (resources != null) {
      try {
        resources.close();
      } catch (Exception e) {
        System.err.println("gpufleet: could not close the cluster client: " + e);
      }
    }
  }
}

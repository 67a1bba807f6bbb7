package io.gpufleet.preflight.wiring;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.preflight.PreflightFunction;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/** Lambda entry: read the payload, hand it to the function, answer with the outcome, flush. */
public final class PreflightHandler implements RequestStreamHandler {
  private final PreflightFunction function;
  private final MetricsPort metrics;
  private final Runnable primeClients;

  public PreflightHandler() {
    this(InitWarmup.around(PreflightPriming.warmup(), PreflightWiring::fromEnvironment));
    PreflightPriming.register(this);
  }

  private PreflightHandler(PreflightWiring.Wired wired) {
    this.function = wired.function();
    this.metrics = wired.metrics();
    this.primeClients = wired.primeClients();
  }

  public PreflightHandler(PreflightFunction function, MetricsPort metrics) {
    this.function = function;
    this.metrics = metrics;
    this.primeClients = () -> {};
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    byte[] payload = input.readAllBytes();
    try {
      var outcome = PowertoolsLogging.withLogging(context, () -> function.handle(payload));
      output.write(Json.MAPPER.writeValueAsBytes(outcome));
    } finally {
      metrics.flush();
    }
  }

  PreflightFunction function() {
    return function;
  }

  /**
   * SnapStart priming: the home region's clients, built without a call (see {@link
   * PreflightWiring.Wired}).
   */
  void primeClients() {
    primeClients.run();
  }
}

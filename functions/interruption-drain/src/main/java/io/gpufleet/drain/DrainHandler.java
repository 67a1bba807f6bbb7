package io.gpufleet.drain;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.MetricsSink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/** Lambda entry: decode, hand to the service, answer with the outcomes, flush metrics. */
public final class DrainHandler implements RequestStreamHandler, AutoCloseable {
  static final Duration REPORT_RESERVE = Duration.ofSeconds(5);
  private final EventDecoder decoder = new EventDecoder();
  private final DrainService service;
  private final MetricsSink metrics;
  private final Clock clock;
  private final AutoCloseable resources;

  public DrainHandler() {
    this(wire(), Clock.systemUTC());
    DrainPriming.register(this);
  }

  /** Wiring on this thread, client-independent warm-up on another; both done on return. */
  private static DrainWiring.Wired wire() {
    Thread warmup = DrainWarmup.start();
    try {
      DrainPriming.prime(new EventDecoder());
      DrainWiring.Wired wired = DrainWiring.fromEnvironment();
      wired.prime().run();
      return wired;
    } finally {
      DrainWarmup.join(warmup);
    }
  }

  private DrainHandler(DrainWiring.Wired wired, Clock clock) {
    this(wired.service(), wired.metrics(), clock, wired.client());
  }

  public DrainHandler(DrainService service, MetricsSink metrics, Clock clock) {
    this(service, metrics, clock, null);
  }

  private DrainHandler(
      DrainService service, MetricsSink metrics, Clock clock, AutoCloseable resources) {
    this.service = service;
    this.metrics = metrics;
    this.clock = clock;
    this.resources = resources;
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    byte[] payload = input.readAllBytes();
    Instant hardStop =
        clock.instant().plusMillis(context.getRemainingTimeInMillis()).minus(REPORT_RESERVE);
    try {
      Object answer =
          PowertoolsLogging.withLogging(
              context,
              () -> {
                var root = sqsBatchOrNull(payload);
                return root != null
                    ? SqsBatch.handle(root, decoder, service, hardStop)
                    : service.handle(decoder.decode(payload), hardStop);
              });
      output.write(Json.MAPPER.writeValueAsBytes(answer));
    } finally {
      metrics.flush();
    }
  }

  /** The parsed payload when it is an SQS event source mapping's batch, else null. */
  private static com.fasterxml.jackson.databind.JsonNode sqsBatchOrNull(byte[] payload) {
    if (payload.length < 12 || payload.length > 8 * 1024 * 1024) {
      return null;
    }
    try {
      var root = Json.MAPPER.readTree(payload);
      return SqsBatch.isBatch(root) ? root : null;
    } catch (IOException e) {
      return null; // the decoder words the rejection
    }
  }

  /**
   * One-shot local runs only ({@link LocalInvoke}): closes the cluster client, whose HTTP selector
   * thread would otherwise sit in native code and hold up JVM exit by ~0.3 s.
   */
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

  EventDecoder decoder() {
    return decoder;
  }
}

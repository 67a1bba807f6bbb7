package io.gpufleet.drain.wiring;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.LifecycleEvents;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.SqsBatch;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * Lambda entry: decode, hand to the service, answer with the outcomes, flush metrics. Takes an
 * EventBridge event directly or an SQS batch of them ({@link SqsBatch}): a batch is answered with
 * {@code batchItemFailures} naming only the messages to retry.
 */
public final class DrainHandler implements RequestStreamHandler, AutoCloseable {
  static final Duration REPORT_RESERVE = Duration.ofSeconds(5);

  /** EMF metric: an event this invocation could not handle (it throws, so Lambda retries). */
  static final String EVENTS_FAILED = "EventsFailed";

  private final EventDecoder decoder;
  private final DrainService service;
  private final MetricsPort metrics;
  private final Clock clock;
  private final AutoCloseable resources;

  public DrainHandler() {
    this(wire(), Clock.systemUTC());
    DrainPriming.register(this);
  }

  /** Wiring on this thread, client-independent warm-up on another; both done on return. */
  private static DrainWiring.Wired wire() {
    return InitWarmup.around(
        DrainWarmup.steps(),
        () -> {
          DrainPriming.prime(new EventDecoder());
          DrainWiring.Wired wired = DrainWiring.fromEnvironment();
          wired.prime().run();
          return wired;
        });
  }

  private DrainHandler(DrainWiring.Wired wired, Clock clock) {
    this(wired.service(), wired.metrics(), clock, wired.client());
  }

  public DrainHandler(DrainService service, MetricsPort metrics, Clock clock) {
    this(service, metrics, clock, null);
  }

  private DrainHandler(
      DrainService service, MetricsPort metrics, Clock clock, AutoCloseable resources) {
    this.service = service;
    this.metrics = metrics;
    this.clock = clock;
    this.resources = resources;
    this.decoder = new EventDecoder(clock, System.getenv("AWS_REGION"));
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    byte[] payload = input.readAllBytes();
    Instant hardStop =
        clock.instant().plusMillis(context.getRemainingTimeInMillis()).minus(REPORT_RESERVE);
    try {
      var batch = SqsBatch.parse(payload);
      if (batch.isPresent()) {
        var result =
            PowertoolsLogging.withLogging(context, () -> handleBatch(batch.get(), hardStop));
        if (!result.failed().isEmpty()) {
          // each left for SQS to redeliver (then the dead-letter queue)
          metrics.add(EVENTS_FAILED, result.failed().size(), MetricsPort.Unit.COUNT);
        }
        output.write(Json.MAPPER.writeValueAsBytes(result.response()));
        return;
      }
      var outcomes =
          PowertoolsLogging.withLogging(
              context, () -> service.handle(decodeDirect(payload), hardStop));
      output.write(Json.MAPPER.writeValueAsBytes(outcomes));
    } catch (RuntimeException | IOException e) {
      // Lambda retries and then dead-letters the event; the metric lets an alarm say so at once.
      metrics.add(EVENTS_FAILED, 1, MetricsPort.Unit.COUNT);
      throw e;
    } finally {
      metrics.flush();
    }
  }

  /**
   * A direct invocation: an EventBridge event, or Auto Scaling's own lifecycle message (also inside
   * an SNS notification), read as {@link LifecycleEvents#decodeSqsBody} reads an SQS body, so a
   * payload gives the same outcome whichever way it came.
   */
  private io.gpufleet.core.event.DecodeResult decodeDirect(byte[] payload) {
    if (payload.length == 0 || payload.length > 256 * 1024) {
      return decoder.decode(payload); // the decoder words the rejection
    }
    return LifecycleEvents.decodeSqsBody(
        new String(payload, java.nio.charset.StandardCharsets.UTF_8),
        System.getenv("AWS_REGION"),
        decoder);
  }

  /**
   * Every message of an SQS batch at once (one virtual thread each, so a batch of warnings for
   * different nodes drains them side by side). Each body is decoded by {@link
   * io.gpufleet.core.event.LifecycleEvents#decodeSqsBody}: an EventBridge envelope (generic queue,
   * or the drain's own lifecycle continuation) or Auto Scaling's direct/SNS-wrapped message
   * (lifecycle queue). A message whose handling threw (the cluster was unreachable) is reported for
   * retry; a rejected or handled one is not, so it is deleted.
   */
  public SqsBatch.Result handleBatch(SqsBatch batch, Instant hardStop) {
    var outcomes = new java.util.ArrayList<java.util.List<io.gpufleet.drain.model.DrainOutcome>>();
    var failed = new java.util.ArrayList<String>();
    try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      var futures =
          new java.util.ArrayList<
              java.util.concurrent.Future<java.util.List<io.gpufleet.drain.model.DrainOutcome>>>();
      for (SqsBatch.Message m : batch.messages()) {
        futures.add(
            pool.submit(
                () ->
                    service.handle(
                        LifecycleEvents.decodeSqsBody(
                            new String(m.body(), java.nio.charset.StandardCharsets.UTF_8),
                            m.awsRegion(),
                            decoder),
                        hardStop)));
      }
      for (int i = 0; i < futures.size(); i++) {
        var message = batch.messages().get(i);
        try {
          outcomes.add(futures.get(i).get());
        } catch (java.util.concurrent.ExecutionException e) {
          failed.add(message.messageId());
          outcomes.add(java.util.List.of());
          org.slf4j.LoggerFactory.getLogger(DrainHandler.class)
              .warn(
                  "SQS message {} will be retried: {}",
                  message.messageId(),
                  e.getCause().toString());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failed.add(message.messageId());
          outcomes.add(java.util.List.of());
        }
      }
    }
    return new SqsBatch.Result(batch, outcomes, failed);
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

package io.gpufleet.drain.wiring;

import com.amazonaws.services.lambda.runtime.Context;
import io.gpufleet.core.event.AccountFilter;
import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.LifecycleEvents;
import io.gpufleet.core.lambda.LambdaEntry;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.SqsBatch;
import io.gpufleet.drain.model.DrainOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.LoggerFactory;

/**
 * What the drain's {@link LambdaEntry} decodes and runs: an EventBridge event directly, or an SQS
 * batch of them ({@link SqsBatch}), answered with {@code batchItemFailures} naming only the
 * messages to retry. Every event's deadline is the invocation's remaining time less {@link
 * DrainHandler#REPORT_RESERVE}.
 */
final class DrainInvocations {
  /** A payload: an SQS batch, or one event sent directly. */
  sealed interface Input {}

  record Batch(SqsBatch batch) implements Input {}

  record Direct(DecodeResult event) implements Input {}

  private final EventDecoder decoder;
  private final DrainService service;
  private final MetricsPort metrics;
  private final Clock clock;

  DrainInvocations(DrainService service, MetricsPort metrics, Clock clock) {
    this(service, metrics, clock, AccountFilter.ANY);
  }

  DrainInvocations(DrainService service, MetricsPort metrics, Clock clock, AccountFilter accounts) {
    this.service = service;
    this.metrics = metrics;
    this.clock = clock;
    this.decoder = new EventDecoder(clock, System.getenv("AWS_REGION"), accounts);
  }

  LambdaEntry<Input> entry() {
    return LambdaEntry.of(this::decode, this::run, metrics)
        .countingFailuresAs(DrainHandler.EVENTS_FAILED);
  }

  Input decode(byte[] payload) {
    return SqsBatch.parse(payload).<Input>map(Batch::new).orElseGet(() -> direct(payload));
  }

  Object run(Input input, Context context) {
    Instant hardStop =
        clock
            .instant()
            .plusMillis(context.getRemainingTimeInMillis())
            .minus(DrainHandler.REPORT_RESERVE);
    return switch (input) {
      case Direct d -> service.handle(d.event(), hardStop);
      case Batch b -> {
        var result = handleBatch(b.batch(), hardStop);
        if (!result.failed().isEmpty()) {
          // each left for SQS to redeliver (then the dead-letter queue)
          metrics.add(DrainHandler.EVENTS_FAILED, result.failed().size());
        }
        yield result.response();
      }
    };
  }

  /**
   * A direct invocation: an EventBridge event, or Auto Scaling's own lifecycle message (also inside
   * an SNS notification), read as {@link LifecycleEvents#decodeSqsBody} reads an SQS body, so a
   * payload gives the same outcome whichever way it came.
   */
  private Direct direct(byte[] payload) {
    if (payload.length == 0 || payload.length > 256 * 1024) {
      return new Direct(decoder.decode(payload)); // the decoder words the rejection
    }
    return new Direct(
        LifecycleEvents.decodeSqsBody(
            new String(payload, StandardCharsets.UTF_8), System.getenv("AWS_REGION"), decoder));
  }

  /**
   * Every message of an SQS batch at once (one virtual thread each, so a batch of warnings for
   * different nodes drains them side by side). Each body is decoded by {@link
   * LifecycleEvents#decodeSqsBody}: an EventBridge envelope (generic queue, or the drain's own
   * lifecycle continuation) or Auto Scaling's direct/SNS-wrapped message (lifecycle queue). A
   * message whose handling threw (the cluster was unreachable) is reported for retry; a rejected or
   * handled one is not, so it is deleted.
   */
  SqsBatch.Result handleBatch(SqsBatch batch, Instant hardStop) {
    var outcomes = new ArrayList<List<DrainOutcome>>();
    var failed = new ArrayList<String>();
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<List<DrainOutcome>>>();
      for (SqsBatch.Message m : batch.messages()) {
        futures.add(
            pool.submit(
                () ->
                    service.handle(
                        LifecycleEvents.decodeSqsBody(
                            new String(m.body(), StandardCharsets.UTF_8), m.awsRegion(), decoder),
                        hardStop)));
      }
      for (int i = 0; i < futures.size(); i++) {
        var message = batch.messages().get(i);
        try {
          outcomes.add(futures.get(i).get());
        } catch (ExecutionException e) {
          failed.add(message.messageId());
          outcomes.add(List.of());
          LoggerFactory.getLogger(DrainHandler.class)
              .warn(
                  "SQS message {} will be retried: {}",
                  message.messageId(),
                  e.getCause().toString());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failed.add(message.messageId());
          outcomes.add(List.of());
        }
      }
    }
    return new SqsBatch.Result(batch, outcomes, failed);
  }
}

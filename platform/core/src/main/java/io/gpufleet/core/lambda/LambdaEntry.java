package io.gpufleet.core.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.Metric;
import io.gpufleet.core.outcome.MetricsPort;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Function;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * The sequence every function's Lambda entry runs, in one place: read the payload, decode it, run
 * the service, answer with its result as JSON, flush the metrics.
 *
 * <ul>
 *   <li>Decoding and the run happen inside the invocation's logging context (request id, cold
 *       start), so every log line of the run carries it.
 *   <li>A payload the decoder refuses with a {@link ConfigException} (the precise reason) is
 *       answered by {@link #rejecting}'s mapping, an acknowledged outcome: retrying cannot make it
 *       valid. Without a mapping the exception goes to Lambda like any other.
 *   <li>Anything else thrown goes to Lambda, which retries the invocation and then dead-letters it;
 *       {@link #countingFailuresAs} counts it first so an alarm hears of it at once.
 *   <li>The metrics are flushed whatever happened.
 * </ul>
 *
 * @param <I> what the decoder makes of a payload
 */
public record LambdaEntry<I>(
    Decoder<I> decoder,
    Service<I> service,
    MetricsPort metrics,
    Function<ConfigException, ?> rejection,
    Metric failureMetric,
    AutoCloseable resources) {

  /** Turns the raw payload into the service's input; a {@link ConfigException} names the flaw. */
  @FunctionalInterface
  public interface Decoder<I> {
    I decode(byte[] payload);
  }

  /** Runs one decoded invocation; its result is the invocation's answer (written as JSON). */
  @FunctionalInterface
  public interface Service<I> {
    Object run(I input, Context context);
  }

  /** Decodes with {@code decoder}, runs {@code service}, flushes {@code metrics}. */
  public static <I> LambdaEntry<I> of(Decoder<I> decoder, Service<I> service, MetricsPort metrics) {
    return new LambdaEntry<>(decoder, service, metrics, null, null, null);
  }

  /** A payload refused with a {@link ConfigException} is answered by {@code answer}, not thrown. */
  public LambdaEntry<I> rejecting(Function<ConfigException, ?> answer) {
    return new LambdaEntry<>(decoder, service, metrics, answer, failureMetric, resources);
  }

  /** An invocation that throws adds 1 to the EMF metric {@code metric} before Lambda sees it. */
  public LambdaEntry<I> countingFailuresAs(Metric metric) {
    return new LambdaEntry<>(decoder, service, metrics, rejection, metric, resources);
  }

  /** What {@link #close} closes: the clients a one-shot local run must let go of. */
  public LambdaEntry<I> closing(AutoCloseable resources) {
    return new LambdaEntry<>(decoder, service, metrics, rejection, failureMetric, resources);
  }

  /** One invocation, as {@code RequestStreamHandler.handleRequest}. */
  public void handle(InputStream input, OutputStream output, Context context) throws IOException {
    byte[] payload = input.readAllBytes();
    try {
      Object answer = PowertoolsLogging.withLogging(context, () -> answer(payload, context));
      output.write(Json.MAPPER.writeValueAsBytes(answer));
    } catch (RuntimeException | IOException e) {
      if (failureMetric != null) {
        metrics.add(failureMetric, 1);
      }
      throw e;
    } finally {
      metrics.flush();
    }
  }

  private Object answer(byte[] payload, Context context) {
    I input;
    try {
      input = decoder.decode(payload);
    } catch (ConfigException e) {
      if (rejection == null) {
        throw e;
      }
      return rejection.apply(e);
    }
    return service.run(input, context);
  }

  /**
   * Closes {@link #closing}'s resources (one-shot local runs only: a Lambda environment keeps its
   * clients for the next invocation). A failure is printed, not thrown: the run's answer is out.
   */
  public void close() {
    if (resources == null) {
      return;
    }
    try {
      resources.close();
    } catch (Exception e) {
      System.err.println("gpufleet: could not close the handler's clients: " + e);
    }
  }
}

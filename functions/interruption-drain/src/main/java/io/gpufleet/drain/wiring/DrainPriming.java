package io.gpufleet.drain.wiring;

import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.SnapStartPriming;
import io.gpufleet.drain.DrainReporting;
import io.gpufleet.drain.model.DrainOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;

/**
 * SnapStart priming: before the snapshot, the read-only paths (decode an event, render an outcome),
 * then complete drains against a loopback API server ({@link DrainPrimingRun}), so the first event
 * after a restore finds the whole path loaded and compiled. Captures no credentials, tokens or
 * time.
 */
public final class DrainPriming {
  private static final String SAMPLE =
      "{\"version\":\"0\",\"id\":\"prime\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\","
          + "\"source\":\"aws.ec2\",\"account\":\"000000000000\",\"time\":\"2026-01-01T00:00:00Z\","
          + "\"region\":\"us-east-1\",\"resources\":[],\"detail\":{\"instance-id\":\"i-0123456789abcdef0\","
          + "\"instance-action\":\"terminate\"}}";

  private DrainPriming() {}

  /**
   * Registers the SnapStart hooks: before the snapshot, the handler's read-only paths and a
   * complete drain against a loopback API server.
   */
  static void register() {
    var decoder = new EventDecoder(Clock.systemUTC(), System.getenv("AWS_REGION"));
    SnapStartPriming.register(
        DrainPriming.class,
        "read-only paths and a loopback drain",
        () -> {
          prime(decoder);
          primeDrain();
        });
  }

  /**
   * What the beforeCheckpoint hook runs, for a caller outside Lambda ({@code bench drain
   * --restored}, which times the first event after it): the read-only paths, then the loopback
   * drain; returns what the drain did, as the hook logs it.
   */
  public static String beforeSnapshot() {
    prime(new EventDecoder(Clock.systemUTC(), System.getenv("AWS_REGION")));
    var result = primeDrain();
    return result == null ? "skipped (see the warning)" : describe(result);
  }

  /** Only what every INIT primes (no SnapStart): the read-only paths. */
  public static void readOnlyPaths() {
    prime(new EventDecoder(Clock.systemUTC(), System.getenv("AWS_REGION")));
  }

  static String describe(DrainPrimingRun.Result r) {
    return r.rounds()
        + " rounds, "
        + r.evictions()
        + " evictions ("
        + r.refusals()
        + " refused by a budget and retried), "
        + io.gpufleet.core.lambda.ProcSockets.touching(r.port()).size()
        + " sockets left to the loopback server";
  }

  /**
   * The complete drain (see {@link DrainPrimingRun}); its outcome is checked so a priming that
   * stopped short of the evictions says so in the INIT log rather than priming less in silence.
   */
  static DrainPrimingRun.Result primeDrain() {
    DrainPrimingRun.Result result;
    try {
      result = DrainPrimingRun.run();
    } catch (RuntimeException | LinkageError failed) {
      // a head start only: a runtime without what the loopback needs (jdk.httpserver) still
      // publishes its version, whose first event pays the first-use costs instead
      org.slf4j.LoggerFactory.getLogger(DrainPriming.class)
          .warn("snapstart priming drain skipped: {}", String.valueOf(failed));
      return null;
    }
    if (result.evictions() < (long) result.rounds() * DrainPrimingRun.PODS
        || !result.unexpected().isEmpty()) {
      org.slf4j.LoggerFactory.getLogger(DrainPriming.class)
          .warn(
              "snapstart priming drain incomplete: {} evictions, unexpected requests {}",
              result.evictions(),
              result.unexpected());
    }
    io.gpufleet.core.lambda.SnapStart.log(
        org.slf4j.LoggerFactory.getLogger(DrainPriming.class),
        "snapstart priming drain: {}",
        describe(result));
    return result;
  }

  /**
   * INIT's main thread: the read-only paths primed first (Jackson 2, while the warm-up thread
   * readies logging), then the wiring, then the cluster client's JSON paths (no request).
   */
  static DrainWiring.Wired wire() {
    prime(new EventDecoder());
    DrainWiring.Wired wired = DrainWiring.fromEnvironment();
    wired.prime().run();
    return wired;
  }

  /** The read-only paths every invocation takes (also run on the init warm-up thread). */
  static void prime(EventDecoder decoder) {
    decoder.decode(SAMPLE.getBytes(StandardCharsets.UTF_8));
    var outcome =
        DrainOutcome.simple(
            "prime",
            "spot-interruption",
            "i-0",
            "c",
            "n",
            DrainOutcome.Status.DRAINED,
            "",
            Instant.EPOCH);
    Json.write(outcome);
    DrainReporting.summary(outcome);
  }
}

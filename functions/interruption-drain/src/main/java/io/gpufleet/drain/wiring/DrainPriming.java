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
 * SnapStart priming: before the snapshot, run the read-only paths (decode each event kind, render
 * an outcome) so their classes are loaded and compiled. Captures no credentials, tokens or time.
 */
final class DrainPriming {
  private static final String SAMPLE =
      "{\"version\":\"0\",\"id\":\"prime\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\","
          + "\"source\":\"aws.ec2\",\"account\":\"000000000000\",\"time\":\"2026-01-01T00:00:00Z\","
          + "\"region\":\"us-east-1\",\"resources\":[],\"detail\":{\"instance-id\":\"i-0123456789abcdef0\","
          + "\"instance-action\":\"terminate\"}}";

  private DrainPriming() {}

  /** Registers the SnapStart hooks: before the snapshot, the handler's read-only paths. */
  static void register() {
    var decoder = new EventDecoder(Clock.systemUTC(), System.getenv("AWS_REGION"));
    SnapStartPriming.register(DrainPriming.class, "read-only paths", () -> prime(decoder));
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

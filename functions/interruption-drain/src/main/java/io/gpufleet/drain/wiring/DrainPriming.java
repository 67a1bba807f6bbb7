package io.gpufleet.drain.wiring;

import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.SnapStart;
import io.gpufleet.drain.DrainReporter;
import io.gpufleet.drain.model.DrainOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.crac.Core;
import org.crac.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SnapStart priming: before the snapshot, run the read-only paths (decode each event kind, render
 * an outcome) so their classes are loaded and compiled. Captures no credentials, tokens or time.
 */
final class DrainPriming implements Resource {
  private static final Logger LOG = LoggerFactory.getLogger(DrainPriming.class);
  private static final String SAMPLE =
      "{\"version\":\"0\",\"id\":\"prime\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\","
          + "\"source\":\"aws.ec2\",\"account\":\"000000000000\",\"time\":\"2026-01-01T00:00:00Z\","
          + "\"region\":\"us-east-1\",\"resources\":[],\"detail\":{\"instance-id\":\"i-0123456789abcdef0\","
          + "\"instance-action\":\"terminate\"}}";
  private static DrainPriming instance;
  private final DrainHandler handler;

  private DrainPriming(DrainHandler handler) {
    this.handler = handler;
  }

  static synchronized void register(DrainHandler handler) {
    instance = new DrainPriming(handler);
    Core.getGlobalContext().register(instance);
  }

  @Override
  public void beforeCheckpoint(org.crac.Context<? extends Resource> context) {
    prime(handler.decoder());
    SnapStart.log(LOG, "snapstart beforeCheckpoint: read-only paths primed");
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
    DrainReporter.summary(outcome);
  }

  /**
   * One snapshot resumes many environments, hours after its INIT: drop the credentials, EKS token
   * and API-server connections of INIT (the next call resolves them afresh, nothing here does I/O).
   */
  @Override
  public void afterRestore(org.crac.Context<? extends Resource> context) {
    int renewed = SnapStart.afterRestore();
    SnapStart.log(
        LOG,
        "snapstart afterRestore: renewed {} credentials, token and connection holders",
        renewed);
  }
}

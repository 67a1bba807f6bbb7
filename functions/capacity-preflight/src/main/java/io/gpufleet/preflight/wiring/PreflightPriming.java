package io.gpufleet.preflight.wiring;

import io.gpufleet.core.aws.Ec2Xml;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.SnapStartPriming;
import io.gpufleet.preflight.PlanParser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * SnapStart priming: before the snapshot, decode an alarm event and parse a plan so those classes
 * are loaded and compiled. No AWS call, no credentials, no time captured.
 */
final class PreflightPriming {
  static final String ALARM =
      "{\"version\":\"0\",\"id\":\"prime\",\"detail-type\":\"CloudWatch Alarm State Change\","
          + "\"source\":\"aws.cloudwatch\",\"account\":\"000000000000\",\"time\":\"2026-01-01T00:00:00Z\","
          + "\"region\":\"us-east-1\",\"resources\":[],\"detail\":{\"alarmName\":\"prime\","
          + "\"state\":{\"value\":\"OK\",\"timestamp\":\"2026-01-01T00:00:00.000+0000\"},"
          + "\"configuration\":{\"metrics\":[]}}}";
  static final String PLAN =
      "name: prime\nregions: [us-east-1]\nentries:\n  - instanceType: p5.48xlarge\n"
          + "    count: 1\n    capacityType: spot\n";

  private PreflightPriming() {}

  /**
   * Registers the SnapStart hooks: before the snapshot, the read-only paths, the home region's
   * clients (no call): building the SDK clients loads their classes, work the snapshot should hold
   * rather than the first event after restore; and the EC2 answer reader.
   */
  static void register(PreflightWiring.Wired wired) {
    SnapStartPriming.register(
        PreflightPriming.class,
        "read-only paths and home-region clients",
        () -> {
          readOnlyPaths(wired.function().decoder());
          wired.primeClients().run();
          Ec2Xml.prime();
        });
  }

  /** Decode an alarm event, parse and write a plan: no AWS call, no credentials, no time. */
  static void readOnlyPaths(EventDecoder decoder) {
    decoder.decode(ALARM.getBytes(StandardCharsets.UTF_8));
    Json.write(PlanParser.parse(PLAN, "priming"));
  }

  /** INIT's warm-up steps beside the wiring ({@link io.gpufleet.core.lambda.InitWarmup}). */
  static List<Runnable> warmup() {
    return List.of(
        () -> readOnlyPaths(new EventDecoder()),
        () -> LoggerFactory.getLogger(PreflightHandler.class));
  }
}

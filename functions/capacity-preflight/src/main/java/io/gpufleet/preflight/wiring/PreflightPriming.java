package io.gpufleet.preflight.wiring;

import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.SnapStartPriming;
import io.gpufleet.core.outcome.PowertoolsMetricsAdapter;
import io.gpufleet.core.s3.S3Rest;
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
  static final String PLAN_JSON =
      "{\"name\":\"prime\",\"regions\":[\"us-east-1\"],\"entries\":[{\"instanceType\":"
          + "\"p5.48xlarge\",\"count\":1,\"capacityType\":\"spot\"}]}";

  private PreflightPriming() {}

  /**
   * Registers the SnapStart hooks: before the snapshot, the read-only paths, the home region's
   * clients (no call), and what their first call loads (a request signed with dummy keys for a
   * fixed date, an EC2 answer read, an S3 PutObject signed as S3 wants it): work the snapshot
   * should hold rather than the first event after restore.
   */
  static void register(PreflightWiring.Wired wired) {
    SnapStartPriming.register(
        PreflightPriming.class,
        "read-only paths and home-region clients",
        () -> {
          readOnlyPaths(wired.function().decoder());
          wired.primeClients().run();
          Ec2Query.prime();
          S3Rest.prime();
          PowertoolsMetricsAdapter.prime();
        });
  }

  /**
   * Decode an alarm event, parse and write a plan (YAML, as from S3 or PREFLIGHT_PLAN, and JSON, as
   * in a scheduled payload): no AWS call, no credentials, no time.
   */
  static void readOnlyPaths(EventDecoder decoder) {
    decoder.decode(ALARM.getBytes(StandardCharsets.UTF_8));
    Json.write(PlanParser.parse(PLAN, "priming"));
    payloadPlan();
  }

  /** A plan as a scheduled payload carries it (a JSON object: no YAML reader). */
  private static void payloadPlan() {
    try {
      Json.write(PlanParser.parse(Json.MAPPER.readTree(PLAN_JSON), "priming"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * INIT's warm-up steps beside the wiring ({@link io.gpufleet.core.lambda.InitWarmup}): the paths
   * of the daily payload (an alarm's decoding shares the event classes), logging and the metrics
   * flush's EMF writer (the signer, HTTP client and EC2 answer reader are loaded beside the home
   * region's clients, see {@link PreflightWiring}), then S3's signing path (the dedupe claim, the
   * report and an s3:// plan: a PutObject signed with dummy keys). The YAML reader is left to
   * SnapStart priming: INIT without a snapshot is on the critical path, and a scheduled payload's
   * plan is JSON.
   */
  static List<Runnable> warmup() {
    return List.of(
        () -> new EventDecoder().decode(ALARM.getBytes(StandardCharsets.UTF_8)),
        PreflightPriming::payloadPlan,
        () -> LoggerFactory.getLogger(PreflightHandler.class),
        PowertoolsMetricsAdapter::prime,
        S3Rest::prime);
  }
}

package io.gpufleet.preflight.wiring;

import io.gpufleet.core.aws.Ec2Xml;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.SnapStart;
import io.gpufleet.preflight.PlanParser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.crac.Core;
import org.crac.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SnapStart priming: before the snapshot, decode an alarm event and parse a plan so those classes
 * are loaded and compiled. No AWS call, no credentials, no time captured.
 */
final class PreflightPriming implements Resource {
  private static final Logger LOG = LoggerFactory.getLogger(PreflightPriming.class);
  static final String ALARM =
      "{\"version\":\"0\",\"id\":\"prime\",\"detail-type\":\"CloudWatch Alarm State Change\","
          + "\"source\":\"aws.cloudwatch\",\"account\":\"000000000000\",\"time\":\"2026-01-01T00:00:00Z\","
          + "\"region\":\"us-east-1\",\"resources\":[],\"detail\":{\"alarmName\":\"prime\","
          + "\"state\":{\"value\":\"OK\",\"timestamp\":\"2026-01-01T00:00:00.000+0000\"},"
          + "\"configuration\":{\"metrics\":[]}}}";
  static final String PLAN =
      "name: prime\nregions: [us-east-1]\nentries:\n  - instanceType: p5.48xlarge\n"
          + "    count: 1\n    capacityType: spot\n";
  private static PreflightPriming instance;
  private final PreflightHandler handler;

  private PreflightPriming(PreflightHandler handler) {
    this.handler = handler;
  }

  static synchronized void register(PreflightHandler handler) {
    instance = new PreflightPriming(handler);
    Core.getGlobalContext().register(instance);
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

  @Override
  public void beforeCheckpoint(org.crac.Context<? extends Resource> context) {
    readOnlyPaths(handler.function().decoder());
    // the home region's clients (no call): building the SDK clients loads their classes, work the
    // snapshot should hold rather than the first event after restore; and the EC2 answer reader
    handler.primeClients();
    Ec2Xml.prime();
    SnapStart.log(
        LOG, "snapstart beforeCheckpoint: read-only paths and home-region clients primed");
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

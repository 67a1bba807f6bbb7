package io.gpufleet.schedule;

import io.gpufleet.core.aws.SignedHttp;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.SnapStartPriming;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.policy.Policy;
import io.gpufleet.schedule.policy.PolicyParser;
import io.gpufleet.schedule.policy.WindowClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * SnapStart priming: before the snapshot, run the read-only paths (decode a tick, parse a policy,
 * judge a window, plan over nothing, render an outcome). Captures no credentials, tokens or time.
 */
public final class SchedulePriming {

  static final String TICK =
      "{\"version\":\"0\",\"id\":\"prime\",\"detail-type\":\"GPU Fleet Schedule Tick\","
          + "\"source\":\"gpufleet.scheduler\",\"time\":\"2026-01-05T09:00:00Z\",\"resources\":[],"
          + "\"detail\":{\"scheduleArn\":\"arn:aws:scheduler:us-east-1:000000000000:schedule/default/prime\","
          + "\"scheduledTime\":\"2026-01-05T09:00:00Z\",\"attemptNumber\":\"1\"}}";

  static final String POLICY =
      """
      timeZone: Europe/Berlin
      defaultWindow: off-hours
      windows: { business-hours: { days: mon-fri, hours: "08:00-19:00" } }
      nodePools: [{ name: p, selector: { names: [p] }, windows: { off-hours: { budgets: [{ nodes: "50%" }] } } }]
      workloads: [{ name: w, selector: { namespaces: [n] }, replicas: { off-hours: 0 } }]
      """;

  private SchedulePriming() {}

  /**
   * Registers the SnapStart hooks: before the snapshot, {@link #prime()} and the S3 client's
   * signing path ({@link S3Rest#prime()}: an {@code s3://} policy is read on every tick).
   */
  public static void register() {
    SnapStartPriming.register(
        SchedulePriming.class,
        "read-only paths",
        () -> {
          prime();
          S3Rest.prime();
        });
  }

  /**
   * INIT's warm-up steps beside the wiring ({@link io.gpufleet.core.lambda.InitWarmup}): the
   * read-only paths, logging, and the signing paths of the run's AWS calls (no network, dummy
   * keys): S3's for an {@code s3://} policy ({@code SCHEDULE_POLICY} = {@code policySource}) or
   * when each run writes its hold record ({@code records}), and the plain one ({@link
   * SignedHttp#prime()}) that SSM, the template's default policy store, and the EKS lookup take.
   */
  public static List<Runnable> warmup(String policySource, boolean records) {
    boolean s3 = policySource != null && policySource.startsWith("s3://");
    var steps = new java.util.ArrayList<Runnable>();
    steps.add(SchedulePriming::prime);
    steps.add(() -> LoggerFactory.getLogger(SchedulePriming.class));
    if (s3 || records) {
      steps.add(S3Rest::prime);
    }
    if (!s3) {
      steps.add(SignedHttp::prime);
    }
    return List.copyOf(steps);
  }

  public static void prime() {
    ScheduleTick.decode(TICK.getBytes(StandardCharsets.UTF_8));
    Policy p = PolicyParser.parse(POLICY, "prime");
    WindowClock.at(p, Instant.EPOCH);
    Planner.plan(p, Instant.EPOCH, List.of(), List.of());
    Json.write(
        ScheduleOutcome.simple(
            ScheduleOutcome.Status.RECONCILED, "c", null, null, Instant.EPOCH, ""));
  }
}

package io.gpufleet.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.catalog.Regions;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.preflight.model.AlarmOutcome;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.RunOutcome;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One invocation of the preflight function, whatever triggered it: an EventBridge envelope
 * (CloudWatch alarm state change) or a run request (the daily schedule or a direct invoke).
 *
 * <p>Run request payload (all fields optional; the plan falls back to PREFLIGHT_PLAN /
 * PREFLIGHT_PLAN_S3_URI):
 *
 * <pre>
 * {"scheduleArn": "&lt;aws.scheduler.schedule-arn&gt;",
 *  "scheduledTime": "&lt;aws.scheduler.scheduled-time&gt;",
 *  "plan": {...} | "planYaml": "..." | "planS3": "s3://bucket/plan.yaml",
 *  "regions": ["us-east-1", "us-west-2"]}
 * </pre>
 *
 * A schedule's run is handled once per (schedule ARN, scheduled time); the attempt number and
 * execution id change on retries and are not part of the key.
 */
public final class PreflightFunction {
  private static final Logger LOG = LoggerFactory.getLogger(PreflightFunction.class);
  private static final java.util.Set<String> REQUEST_FIELDS =
      java.util.Set.of(
          "scheduleArn",
          "scheduledTime",
          "executionId",
          "attempt",
          "plan",
          "planYaml",
          "planS3",
          "regions");

  private final EventDecoder decoder = new EventDecoder();
  private final PreflightService service;
  private final QuotaAlarmService alarms;
  private final ReportStorePort store;
  private final OutcomeReporter<PreflightReporting.Stored> reporter;
  private final DedupeStorePort dedupe;
  private final PlanLoaderPort loader;
  private final NodePoolPort pools;
  private final MetricsPort metrics;
  private final String clusterRegion;

  /** {@code clusterRegion}: where the cluster (and so its NodePools' quotas) lives. */
  public PreflightFunction(
      PreflightService service,
      QuotaAlarmService alarms,
      ReportStorePort store,
      OutcomeReporter<PreflightReporting.Stored> reporter,
      DedupeStorePort dedupe,
      PlanLoaderPort loader,
      NodePoolPort pools,
      MetricsPort metrics,
      String clusterRegion) {
    this.service = service;
    this.alarms = alarms;
    this.store = store;
    this.reporter = reporter;
    this.dedupe = dedupe;
    this.loader = loader;
    this.pools = pools;
    this.metrics = metrics;
    this.clusterRegion = clusterRegion;
  }

  public EventDecoder decoder() {
    return decoder;
  }

  public RunOutcome handle(byte[] payload) {
    JsonNode root;
    try {
      root = payload == null || payload.length == 0 ? null : Json.readPayload(payload);
    } catch (IOException e) {
      return rejected(null, "payload is not JSON: " + ErrorText.brief(e));
    }
    if (root == null || !root.isObject()) {
      return rejected(
          null, "payload must be a JSON object (an EventBridge event or a run request)");
    }
    if (root.has("detail-type") || root.has("source")) {
      return event(root);
    }
    return runRequest(root);
  }

  private RunOutcome event(JsonNode root) {
    DecodeResult decoded = decoder.decode(root);
    if (decoded instanceof DecodeResult.Rejected r) {
      return rejected(r.eventId(), r.reason());
    }
    FleetEvent event = ((DecodeResult.Decoded) decoded).event();
    if (!(event instanceof FleetEvent.AlarmStateChange alarm)) {
      metrics.add(PreflightMetrics.EVENTS_IGNORED, 1);
      String why =
          event instanceof FleetEvent.Unsupported u
              ? u.why()
              : "capacity preflight does not act on " + event.meta().detailType();
      return RunOutcome.of(event.meta().id(), RunOutcome.IGNORED, why);
    }
    AlarmOutcome o = alarms.handle(alarm, configuredPlan(), nodePools());
    metrics.add(PreflightMetrics.ALARMS.get(o.status()), 1);
    LOG.info("quota alarm {}: {} {}", o.alarmName(), o.status(), o.message());
    return new RunOutcome(
        "capacity-preflight", o.eventId(), o.status().name(), o.message(), null, null, o);
  }

  private RunOutcome runRequest(JsonNode root) {
    var unknown = new ArrayList<String>();
    root.fieldNames()
        .forEachRemaining(
            f -> {
              if (!REQUEST_FIELDS.contains(f)) {
                unknown.add(f);
              }
            });
    if (!unknown.isEmpty()) {
      return rejected(
          null,
          "unknown run request field(s) "
              + EventDecoder.echo(String.join(", ", unknown))
              + " (known: "
              + new java.util.TreeSet<>(REQUEST_FIELDS)
              + ")");
    }
    String arn = attribute(root, "scheduleArn");
    String time = attribute(root, "scheduledTime");
    String id = arn == null || time == null ? null : "schedule/" + arn + "@" + time;
    Plan plan;
    try {
      plan = planFrom(root);
    } catch (ConfigException e) {
      return rejected(id, e.getMessage());
    }
    if (id != null && !dedupe.claim(id)) {
      metrics.add(PreflightMetrics.RUNS_ALREADY_HANDLED, 1);
      return RunOutcome.of(
          id, RunOutcome.ALREADY_HANDLED, "scheduled run of " + time + " was handled already");
    }
    try {
      var pools = nodePools();
      var report =
          service.run(
              plan,
              pools,
              pools.isEmpty() ? null : clusterRegion,
              id == null ? "invoke" : "schedule",
              PreflightService.Progress.NONE);
      var uri = PreflightReporting.storeAndReport(reporter, store, report);
      return new RunOutcome(
          "capacity-preflight",
          id,
          RunOutcome.REPORTED,
          report.regions().size()
              + " regions: "
              + report.best().map(b -> "best " + b.region()).orElse("none fits"),
          uri.orElse(null),
          report,
          null);
    } catch (RuntimeException e) {
      if (id != null) {
        dedupe.release(id);
      }
      throw e;
    }
  }

  private Plan planFrom(JsonNode root) {
    Plan plan;
    if (root.hasNonNull("plan")) {
      plan = PlanParser.parse(root.get("plan"), "in the payload");
    } else if (root.hasNonNull("planYaml")) {
      plan = PlanParser.parse(root.get("planYaml").asText(), "in the payload");
    } else if (root.hasNonNull("planS3")) {
      String uri = root.get("planS3").asText();
      PreflightSettings.checkS3Uri(uri);
      plan = PlanParser.parse(loader.read(uri), uri);
    } else {
      plan =
          configuredPlanOrThrow()
              .orElseThrow(
                  () ->
                      new ConfigException(
                          "no plan: send plan, planYaml or planS3, or set PREFLIGHT_PLAN /"
                              + " PREFLIGHT_PLAN_S3_URI"));
    }
    JsonNode regions = root.get("regions");
    if (regions != null && regions.isArray() && !regions.isEmpty()) {
      var list = new ArrayList<String>();
      for (JsonNode r : regions) {
        if (!Regions.known(r.asText())) {
          throw new ConfigException("regions: unknown region '" + r.asText() + "'");
        }
        list.add(r.asText());
      }
      plan = plan.withRegions(list);
    }
    return plan;
  }

  private Optional<Plan> configuredPlanOrThrow() {
    var s = service.settings();
    if (s.planText().isPresent()) {
      return Optional.of(PlanParser.parse(s.planText().get(), "PREFLIGHT_PLAN"));
    }
    if (s.planS3Uri().isPresent()) {
      String uri = s.planS3Uri().get();
      return Optional.of(PlanParser.parse(loader.read(uri), uri));
    }
    return Optional.empty();
  }

  private Optional<Plan> configuredPlan() {
    try {
      return configuredPlanOrThrow();
    } catch (ConfigException e) {
      LOG.warn("configured plan unusable, judging the alarm without it: {}", e.getMessage());
      return Optional.empty();
    }
  }

  private List<NodePoolSpec> nodePools() {
    try {
      return pools.nodePools();
    } catch (RuntimeException e) {
      LOG.warn("could not read NodePools: {}", e.toString());
      metrics.add(PreflightMetrics.NODE_POOL_READ_FAILURES, 1);
      return List.of();
    }
  }

  /** A Scheduler context attribute, or null when absent or left as an unresolved placeholder. */
  private static String attribute(JsonNode root, String field) {
    JsonNode v = root.get(field);
    if (v == null || !v.isTextual() || v.asText().isBlank() || v.asText().startsWith("<aws.")) {
      return null;
    }
    return v.asText();
  }

  private RunOutcome rejected(String id, String reason) {
    metrics.add(PreflightMetrics.PAYLOADS_REJECTED, 1);
    LOG.warn("payload rejected: {}", reason);
    return RunOutcome.of(id, RunOutcome.REJECTED, reason);
  }
}

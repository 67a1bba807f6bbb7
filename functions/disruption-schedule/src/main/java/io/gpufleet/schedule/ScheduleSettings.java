package io.gpufleet.schedule;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.schedule.policy.Guardrails;

/**
 * Configuration from the environment (also CLI flags):
 *
 * <ul>
 *   <li>{@code CLUSTER_NAME} (required)
 *   <li>{@code SCHEDULE_POLICY}: where the policy is: {@code ssm:/parameter/name}, {@code
 *       s3://bucket/key}, {@code file:/path} or the YAML/JSON document itself
 *   <li>{@code SCHEDULE_DRY_RUN} (default false): compute and report the diff, write nothing
 *   <li>{@code SCHEDULE_WRITE_CONCURRENCY} (default 64): applies in flight at once
 *   <li>{@code SCHEDULE_KUBE_EVENTS} (default true): a Kubernetes Event per changed object
 *   <li>the {@link Guardrails} ({@code SCHEDULE_PROTECTED_NAMESPACES}, {@code
 *       SCHEDULE_MAX_REPLICAS}, {@code SCHEDULE_MAX_CHANGES}, {@code SCHEDULE_FLOOR_WINDOWS},
 *       {@code SCHEDULE_FLOOR_MAX_DISRUPTION}), on by default
 * </ul>
 */
public record ScheduleSettings(
    String clusterName,
    String policySource,
    boolean dryRun,
    int writeConcurrency,
    boolean kubeEvents,
    Guardrails guardrails) {

  public ScheduleSettings(
      String clusterName,
      String policySource,
      boolean dryRun,
      int writeConcurrency,
      boolean kubeEvents) {
    this(clusterName, policySource, dryRun, writeConcurrency, kubeEvents, Guardrails.defaults());
  }

  public static ScheduleSettings from(Settings s) {
    String source = s.required("SCHEDULE_POLICY");
    if (source.startsWith("s3://") && !source.matches("s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/.+")) {
      throw new ConfigException("SCHEDULE_POLICY='" + source + "' is not s3://bucket/key");
    }
    if (source.startsWith("ssm:") && !source.matches("ssm:[A-Za-z0-9_.\\-/]{1,2048}")) {
      throw new ConfigException("SCHEDULE_POLICY='" + source + "' is not ssm:/parameter/name");
    }
    return new ScheduleSettings(
        s.required("CLUSTER_NAME"),
        source,
        s.bool("SCHEDULE_DRY_RUN", false),
        s.integer("SCHEDULE_WRITE_CONCURRENCY", 64, 1, 256),
        s.bool("SCHEDULE_KUBE_EVENTS", true),
        Guardrails.from(s));
  }

  public static ScheduleSettings defaults(String cluster, String policySource) {
    return new ScheduleSettings(cluster, policySource, false, 64, true);
  }
}

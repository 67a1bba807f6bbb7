package io.gpufleet.cost;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import java.time.Duration;

/**
 * Cost report configuration. Environment variables (also CLI flags):
 *
 * <ul>
 *   <li>{@code CLUSTER_NAME} (required)
 *   <li>{@code REPORT_BUCKET}: where reports, inventory snapshots and the price cache go (required
 *       in Lambda; the CLI writes to --out instead)
 *   <li>{@code COST_WINDOW} (default last-day): the window when the trigger names none
 *   <li>{@code COST_ALLOCATION_RULE} (default gpu): gpu, cpu-memory or
 *       weighted:gpu=W,cpu=W,memory=W
 *   <li>{@code COST_TEAM_LABEL} (default team): the pod label that names the owning team
 *   <li>{@code COST_SNAPSHOT_RETENTION} (default 960h = 40 days): how long gone nodes and pods stay
 *       in the inventory snapshot (must cover the longest window, month to date)
 *   <li>{@code COST_PRICING_CONCURRENCY} (default 8): price lookups in flight (the Pricing API's
 *       own token bucket still limits the rate)
 * </ul>
 */
public record CostSettings(
    String clusterName,
    String defaultWindow,
    AllocationRule rule,
    String teamLabel,
    Duration snapshotRetention,
    int pricingConcurrency) {

  public static CostSettings from(Settings s) {
    String cluster = s.required("CLUSTER_NAME");
    if (!cluster.matches("[0-9A-Za-z][A-Za-z0-9_-]{0,99}")) {
      throw new ConfigException("CLUSTER_NAME='" + cluster + "' is not an EKS cluster name");
    }
    String team = s.string("COST_TEAM_LABEL", "team");
    if (!team.matches(
        "([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")) {
      throw new ConfigException("COST_TEAM_LABEL='" + team + "' is not a label key");
    }
    Duration retention =
        s.duration("COST_SNAPSHOT_RETENTION", Duration.ofDays(40), Duration.ofDays(400));
    if (retention.compareTo(Duration.ofDays(32)) < 0) {
      throw new ConfigException(
          "COST_SNAPSHOT_RETENTION must be at least 768h (32 days) so month-to-date reports see"
              + " every node");
    }
    return new CostSettings(
        cluster,
        s.string("COST_WINDOW", "last-day"),
        AllocationRule.parse(s.string("COST_ALLOCATION_RULE", "gpu")),
        team,
        retention,
        s.integer("COST_PRICING_CONCURRENCY", 8, 1, 64));
  }

  public static CostSettings defaults(String cluster) {
    return new CostSettings(
        cluster, "last-day", AllocationRule.GPU, "team", Duration.ofDays(40), 8);
  }
}

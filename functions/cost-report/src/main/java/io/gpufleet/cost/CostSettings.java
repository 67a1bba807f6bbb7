package io.gpufleet.cost;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.config.TeamLabel;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 *   <li>{@code COST_GPU_SHARING_REPLICAS}: {@code CONFIG=N,...}: time-slicing/MPS replicas of each
 *       NVIDIA device-plugin config (the node label {@code nvidia.com/device-plugin.config}), for
 *       nodes without an {@code nvidia.com/gpu.replicas} label
 *   <li>{@code COST_COMMITMENTS} (default none): {@code cost-explorer} (Savings Plans and Reserved
 *       Instance coverage and discount from Cost Explorer, 4 requests of USD 0.01 per report),
 *       {@code rate-table} (the rates of {@code COST_EFFECTIVE_RATES}) or {@code none}
 *   <li>{@code COST_EFFECTIVE_RATES}: {@code TYPE=USD_PER_HOUR,...}, a type or a family ({@code
 *       p5.*}); the effective On-Demand rate your commitments give
 *   <li>{@code COST_UTILISATION} (default none): {@code container-insights} (CloudWatch {@code
 *       ContainerInsights} node_gpu_utilization), {@code prometheus} (DCGM exporter, vLLM and TGI
 *       counters at {@code COST_PROMETHEUS_URL}; Amazon Managed Prometheus workspaces are SigV4
 *       signed), or {@code none}
 * </ul>
 */
public record CostSettings(
    String clusterName,
    String defaultWindow,
    AllocationRule rule,
    String teamLabel,
    Duration snapshotRetention,
    int pricingConcurrency,
    Map<String, Integer> sharingReplicas,
    String commitments,
    Map<String, BigDecimal> effectiveRates,
    String utilisation,
    String prometheusUrl) {

  public static final List<String> COMMITMENT_MODES =
      List.of("none", "cost-explorer", "rate-table");
  public static final List<String> UTILISATION_MODES =
      List.of("none", "container-insights", "prometheus");

  public static CostSettings from(Settings s) {
    String cluster = s.required("CLUSTER_NAME");
    if (!cluster.matches("[0-9A-Za-z][A-Za-z0-9_-]{0,99}")) {
      throw new ConfigException("CLUSTER_NAME='" + cluster + "' is not an EKS cluster name");
    }
    String team = TeamLabel.from(s);
    // at least 32 days, so month-to-date reports see every node
    Duration retention =
        s.duration(
            "COST_SNAPSHOT_RETENTION",
            Duration.ofDays(40),
            Duration.ofDays(32),
            Duration.ofDays(400));
    var replicas = new LinkedHashMap<String, Integer>();
    for (var e : pairs(s, "COST_GPU_SHARING_REPLICAS").entrySet()) {
      try {
        int r = Integer.parseInt(e.getValue());
        if (r < 1 || r > 1024) {
          throw new NumberFormatException();
        }
        replicas.put(e.getKey(), r);
      } catch (NumberFormatException x) {
        throw new ConfigException(
            "COST_GPU_SHARING_REPLICAS: replicas of '" + e.getKey() + "' must be 1..1024");
      }
    }
    var rates = new LinkedHashMap<String, BigDecimal>();
    for (var e : pairs(s, "COST_EFFECTIVE_RATES").entrySet()) {
      if (!e.getKey().matches("[a-z][a-z0-9-]*\\.([a-z0-9-]+|\\*)")) {
        throw new ConfigException(
            "COST_EFFECTIVE_RATES: '" + e.getKey() + "' is not an instance type or FAMILY.*");
      }
      try {
        var r = new BigDecimal(e.getValue());
        if (r.signum() < 0) {
          throw new NumberFormatException();
        }
        rates.put(e.getKey(), r);
      } catch (NumberFormatException x) {
        throw new ConfigException(
            "COST_EFFECTIVE_RATES: rate of '" + e.getKey() + "' is not a non-negative number");
      }
    }
    String commitments = oneOf(s, "COST_COMMITMENTS", COMMITMENT_MODES);
    if (commitments.equals("rate-table") && rates.isEmpty()) {
      throw new ConfigException("COST_COMMITMENTS=rate-table needs COST_EFFECTIVE_RATES");
    }
    String utilisation = oneOf(s, "COST_UTILISATION", UTILISATION_MODES);
    String url = s.optional("COST_PROMETHEUS_URL").map(String::trim).orElse(null);
    if (utilisation.equals("prometheus")) {
      if (url == null || !url.matches("https?://[^\\s]+")) {
        throw new ConfigException(
            "COST_UTILISATION=prometheus needs COST_PROMETHEUS_URL (http(s)://host[/path])");
      }
    }
    return new CostSettings(
        cluster,
        s.string("COST_WINDOW", "last-day"),
        AllocationRule.parse(s.string("COST_ALLOCATION_RULE", "gpu")),
        team,
        retention,
        s.integer("COST_PRICING_CONCURRENCY", 8, 1, 64),
        replicas,
        commitments,
        rates,
        utilisation,
        url);
  }

  private static String oneOf(Settings s, String name, List<String> allowed) {
    return s.oneOf(name, "none", allowed);
  }

  private static Map<String, String> pairs(Settings s, String name) {
    var out = new LinkedHashMap<String, String>();
    String text = s.string(name, "").trim();
    if (text.isEmpty()) {
      return out;
    }
    for (String part : text.split(",")) {
      String[] kv = part.split("=", 2);
      if (kv.length != 2 || kv[0].isBlank() || kv[1].isBlank()) {
        throw new ConfigException(name + ": '" + part.trim() + "' is not KEY=VALUE");
      }
      out.put(kv[0].trim(), kv[1].trim());
    }
    return out;
  }

  /**
   * The clusters one run reports: {@code CLUSTER_NAME} first, then {@code CLUSTER_NAMES}
   * (comma-separated, blanks ignored, repeats dropped; the same list the drain serves). Every bad
   * name is refused with its name.
   */
  public static List<String> clusterNames(Settings s) {
    var names = new java.util.LinkedHashSet<String>();
    names.add(s.required("CLUSTER_NAME").trim());
    for (String n : s.optional("CLUSTER_NAMES").orElse("").split(",")) {
      if (!n.isBlank()) {
        names.add(n.trim());
      }
    }
    for (String n : names) {
      if (!n.matches("[0-9A-Za-z][A-Za-z0-9_-]{0,99}")) {
        throw new ConfigException(
            "cluster name '"
                + (n.length() > 120 ? n.substring(0, 120) + "..." : n)
                + "' (CLUSTER_NAME/CLUSTER_NAMES) is not an EKS cluster name");
      }
    }
    return List.copyOf(names);
  }

  public static CostSettings defaults(String cluster) {
    return new CostSettings(
        cluster,
        "last-day",
        AllocationRule.GPU,
        "team",
        Duration.ofDays(40),
        8,
        Map.of(),
        "none",
        Map.of(),
        "none",
        null);
  }
}

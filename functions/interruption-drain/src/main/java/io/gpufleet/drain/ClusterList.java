package io.gpufleet.drain;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The clusters one stack drains, and how events are routed among them.
 *
 * <ul>
 *   <li>{@code CLUSTER_NAME}: the first (and, alone, the only) cluster
 *   <li>{@code CLUSTER_NAMES}: more clusters, comma-separated (empty entries ignored, repeats
 *       dropped); each event goes to the cluster whose node has the instance as providerID
 *   <li>{@code ROUTING_NEGATIVE_TTL} (default 60s, 0 = off, at most 1h): how long an instance found
 *       in no cluster is answered NOT_IN_CLUSTER without another lookup (state changes and
 *       rebalance recommendations only; warnings and lifecycle actions always look again)
 *   <li>{@code ROUTING_NEGATIVE_MAX} (default 10000): most instances remembered that way
 * </ul>
 */
public record ClusterList(List<String> names, Duration negativeTtl, int negativeMax) {
  /** EKS cluster names (CreateCluster: 1-100 characters). */
  static final Pattern NAME = Pattern.compile("[0-9A-Za-z][A-Za-z0-9_-]{0,99}");

  public static final Duration DEFAULT_NEGATIVE_TTL = Duration.ofSeconds(60);
  public static final int DEFAULT_NEGATIVE_MAX = 10_000;

  public ClusterList {
    if (names.isEmpty()) {
      throw new ConfigException("at least one cluster name is required");
    }
    names = List.copyOf(names);
  }

  public static ClusterList of(String... names) {
    return new ClusterList(List.of(names), DEFAULT_NEGATIVE_TTL, DEFAULT_NEGATIVE_MAX);
  }

  public String primary() {
    return names.get(0);
  }

  public boolean many() {
    return names.size() > 1;
  }

  public static ClusterList from(Settings s) {
    return new ClusterList(
        parse(s.required("CLUSTER_NAME"), s.optional("CLUSTER_NAMES").orElse("")),
        s.duration("ROUTING_NEGATIVE_TTL", DEFAULT_NEGATIVE_TTL, Duration.ofHours(1)),
        s.integer("ROUTING_NEGATIVE_MAX", DEFAULT_NEGATIVE_MAX, 1, 1_000_000));
  }

  /** {@code first} then the comma-separated {@code more}; every bad name is named. */
  static List<String> parse(String first, String more) {
    var names = new LinkedHashSet<String>();
    var all = new ArrayList<String>();
    all.add(first.trim());
    for (String n : more.split(",")) {
      if (!n.isBlank()) {
        all.add(n.trim());
      }
    }
    for (String n : all) {
      if (!NAME.matcher(n).matches()) {
        throw new ConfigException(
            "cluster name '"
                + (n.length() > 120 ? n.substring(0, 120) + "..." : n)
                + "' (CLUSTER_NAME/CLUSTER_NAMES) is not an EKS cluster name"
                + " (letters, digits, '-' and '_', starting with a letter or digit, at most 100)");
      }
      names.add(n);
    }
    return List.copyOf(names);
  }
}

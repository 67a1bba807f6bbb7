package io.gpufleet.drain;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainKind;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Drain configuration. Environment variables (also CLI flags):
 *
 * <ul>
 *   <li>{@code DRAIN_ACTIONS}: per kind, e.g. {@code
 *       spot-interruption=taint+cordon+drain;rebalance=taint+cordon;state-change=cordon+drain}
 *       (kinds not named keep their defaults; {@code none} disables a kind; also {@code
 *       health-scheduled}, {@code capacity-reservation-interruption}, {@code
 *       capacity-block-expiring})
 *   <li>{@code DRAIN_DEADLINE_MARGIN} (default 10s): stop before the two-minute notice ends
 *   <li>{@code DRAIN_SKIP_DAEMONSETS} (default true)
 *   <li>{@code DRAIN_FORCE_DELETE} (default false): force-delete what is left just before the
 *       deadline
 *   <li>{@code DRAIN_TAINT_KEY} (default gpufleet.io/interruption)
 *   <li>{@code DRAIN_EXCLUDE_FROM_LB} (default true): label the node out of external load balancers
 *   <li>{@code DRAIN_EVICTION_CONCURRENCY} (default 128): evictions in flight at once
 * </ul>
 */
public record DrainSettings(
    String clusterName,
    Map<DrainKind, Set<Action>> actions,
    Duration deadlineMargin,
    boolean skipDaemonSets,
    boolean forceDeleteAtDeadline,
    String taintKey,
    boolean excludeFromLoadBalancers,
    int evictionConcurrency) {

  public static final Duration SPOT_NOTICE = Duration.ofSeconds(120);

  public static Map<DrainKind, Set<Action>> defaultActions() {
    var map = new EnumMap<DrainKind, Set<Action>>(DrainKind.class);
    map.put(DrainKind.SPOT_INTERRUPTION, EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN));
    map.put(DrainKind.HEALTH_SCHEDULED, EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN));
    map.put(DrainKind.REBALANCE, EnumSet.of(Action.TAINT, Action.CORDON));
    map.put(DrainKind.STATE_CHANGE, EnumSet.of(Action.CORDON, Action.DRAIN));
    map.put(
        DrainKind.CAPACITY_RESERVATION_INTERRUPTION,
        EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN));
    map.put(
        DrainKind.CAPACITY_BLOCK_EXPIRING, EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN));
    return map;
  }

  public static DrainSettings defaults(String clusterName) {
    return new DrainSettings(
        clusterName,
        defaultActions(),
        Duration.ofSeconds(10),
        true,
        false,
        "gpufleet.io/interruption",
        true,
        128);
  }

  public static DrainSettings from(Settings s) {
    String taintKey = s.string("DRAIN_TAINT_KEY", "gpufleet.io/interruption");
    // a Kubernetes qualified name: optional DNS-subdomain prefix (<= 253) and a name (<= 63)
    int slash = taintKey.indexOf('/');
    if (!taintKey.matches(
            "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                + "[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
        || slash > 253
        || taintKey.length() - slash - 1 > 63) {
      throw new ConfigException("DRAIN_TAINT_KEY='" + taintKey + "' is not a valid taint key");
    }
    return new DrainSettings(
        s.required("CLUSTER_NAME"),
        parseActions(s.optional("DRAIN_ACTIONS").orElse("")),
        s.duration("DRAIN_DEADLINE_MARGIN", Duration.ofSeconds(10), Duration.ofSeconds(90)),
        s.bool("DRAIN_SKIP_DAEMONSETS", true),
        s.bool("DRAIN_FORCE_DELETE", false),
        taintKey,
        s.bool("DRAIN_EXCLUDE_FROM_LB", true),
        s.integer("DRAIN_EVICTION_CONCURRENCY", 128, 1, 1000));
  }

  /** Parses DRAIN_ACTIONS over the defaults; every mistake names the offending part. */
  public static Map<DrainKind, Set<Action>> parseActions(String text) {
    var map = defaultActions();
    if (text == null || text.isBlank()) {
      return map;
    }
    for (String part : text.split("[;\\n]")) {
      if (part.isBlank()) {
        continue;
      }
      String[] kv = part.split("=", 2);
      if (kv.length != 2) {
        throw new ConfigException(
            "DRAIN_ACTIONS entry '" + part.trim() + "' is not KIND=ACTION+ACTION");
      }
      String kindName = kv[0].trim();
      DrainKind kind =
          DrainKind.byLabel(kindName)
              .orElseThrow(
                  () ->
                      new ConfigException(
                          "DRAIN_ACTIONS names unknown kind '"
                              + kindName
                              + "' (known: "
                              + DrainKind.labels()
                              + ")"));
      var actions = EnumSet.noneOf(Action.class);
      String list = kv[1].trim().toLowerCase(Locale.ROOT);
      if (!list.equals("none")) {
        for (String a : list.split("[+,]")) {
          switch (a.trim()) {
            case "taint" -> actions.add(Action.TAINT);
            case "cordon" -> actions.add(Action.CORDON);
            case "drain" -> actions.add(Action.DRAIN);
            default ->
                throw new ConfigException(
                    "DRAIN_ACTIONS: unknown action '"
                        + a.trim()
                        + "' for "
                        + kindName
                        + " (known: taint, cordon, drain, none)");
          }
        }
      }
      if (actions.contains(Action.DRAIN) && !actions.contains(Action.CORDON)) {
        throw new ConfigException(
            "DRAIN_ACTIONS: "
                + kindName
                + " drains without cordon; evicted pods would land on the same node again");
      }
      map.put(kind, actions);
    }
    return map;
  }
}

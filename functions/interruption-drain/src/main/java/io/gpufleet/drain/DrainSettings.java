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
 *
 * <p>and the {@link Options} (taint effect, exclusions, dry run, message template, lifecycle
 * hooks).
 */
public record DrainSettings(
    String clusterName,
    Map<DrainKind, Set<Action>> actions,
    Duration deadlineMargin,
    boolean skipDaemonSets,
    boolean forceDeleteAtDeadline,
    String taintKey,
    boolean excludeFromLoadBalancers,
    int evictionConcurrency,
    Options options) {

  public static final Duration SPOT_NOTICE = Duration.ofSeconds(120);
  public static final String KARPENTER_NODEPOOL_LABEL = "karpenter.sh/nodepool";
  static final Set<String> TAINT_EFFECTS = Set.of("NoSchedule", "NoExecute", "PreferNoSchedule");

  /** The settings without {@link Options} (their defaults). */
  public DrainSettings(
      String clusterName,
      Map<DrainKind, Set<Action>> actions,
      Duration deadlineMargin,
      boolean skipDaemonSets,
      boolean forceDeleteAtDeadline,
      String taintKey,
      boolean excludeFromLoadBalancers,
      int evictionConcurrency) {
    this(
        clusterName,
        actions,
        deadlineMargin,
        skipDaemonSets,
        forceDeleteAtDeadline,
        taintKey,
        excludeFromLoadBalancers,
        evictionConcurrency,
        Options.DEFAULTS);
  }

  /**
   * The options users of aws-node-termination-handler and Karpenter rely on.
   *
   * <ul>
   *   <li>{@code DRAIN_TAINT_EFFECT} (NoSchedule | NoExecute | PreferNoSchedule)
   *   <li>{@code DRAIN_EXCLUDE_NODES}: a label selector; matching nodes are never touched
   *   <li>{@code DRAIN_LEAVE_KARPENTER_NODES}: nodes labelled {@code karpenter.sh/nodepool} are
   *       left to Karpenter's own interruption queue
   *   <li>{@code DRAIN_DRY_RUN}: log and answer what would be done, change nothing
   *   <li>{@code DRAIN_MESSAGE_TEMPLATE}: the summary text for SNS/Slack, with placeholders
   *   <li>{@code LIFECYCLE_*}: see {@link Lifecycle}
   * </ul>
   */
  public record Options(
      String taintEffect,
      NodeSelector exclude,
      boolean leaveKarpenterNodes,
      boolean dryRun,
      MessageTemplate messageTemplate,
      Lifecycle lifecycle) {
    public static final Options DEFAULTS =
        new Options("NoSchedule", null, false, false, null, Lifecycle.DEFAULTS);

    public Options withDryRun(boolean on) {
      return new Options(taintEffect, exclude, leaveKarpenterNodes, on, messageTemplate, lifecycle);
    }

    public Options withTaintEffect(String effect) {
      return new Options(effect, exclude, leaveKarpenterNodes, dryRun, messageTemplate, lifecycle);
    }

    public Options withExclude(NodeSelector selector) {
      return new Options(
          taintEffect, selector, leaveKarpenterNodes, dryRun, messageTemplate, lifecycle);
    }

    public Options withLeaveKarpenterNodes(boolean on) {
      return new Options(taintEffect, exclude, on, dryRun, messageTemplate, lifecycle);
    }

    public Options withMessageTemplate(MessageTemplate t) {
      return new Options(taintEffect, exclude, leaveKarpenterNodes, dryRun, t, lifecycle);
    }

    public Options withLifecycle(Lifecycle l) {
      return new Options(taintEffect, exclude, leaveKarpenterNodes, dryRun, messageTemplate, l);
    }

    static Options from(Settings s) {
      String effect =
          s.oneOf("DRAIN_TAINT_EFFECT", "NoSchedule", TAINT_EFFECTS.stream().sorted().toList());
      var exclude =
          s.optional("DRAIN_EXCLUDE_NODES")
              .filter(t -> !t.isBlank())
              .map(t -> NodeSelector.parse("DRAIN_EXCLUDE_NODES", t))
              .orElse(null);
      var template =
          s.optional("DRAIN_MESSAGE_TEMPLATE")
              .filter(t -> !t.isBlank())
              .map(t -> MessageTemplate.parse("DRAIN_MESSAGE_TEMPLATE", t))
              .orElse(null);
      return new Options(
          effect,
          exclude,
          s.bool("DRAIN_LEAVE_KARPENTER_NODES", false),
          s.bool("DRAIN_DRY_RUN", false),
          template,
          Lifecycle.from(s));
    }
  }

  /**
   * Auto Scaling lifecycle hooks.
   *
   * <ul>
   *   <li>{@code LIFECYCLE_HEARTBEAT_INTERVAL} (default 60s, 30s–1h):
   *       RecordLifecycleActionHeartbeat this often while pods remain; keep it below the hook's
   *       HeartbeatTimeout
   *   <li>{@code LIFECYCLE_CHECK_INTERVAL} (default 60s, 10s–15m): a drain still going when an
   *       invocation ends is picked up again this much later (SQS message delay)
   *   <li>{@code LIFECYCLE_MAX_DRAIN} (default 1h, at most 48h, the hooks' global timeout): when
   *       reached, the action is completed with {@code LIFECYCLE_RESULT_AT_LIMIT}
   *   <li>{@code LIFECYCLE_RESULT_AT_LIMIT} (CONTINUE | ABANDON, default CONTINUE)
   *   <li>{@code LIFECYCLE_LAUNCH_READY_TIMEOUT} (default 10m, 0 = complete launches at once): how
   *       long a launch hook waits for its node to be Ready before it is completed anyway
   * </ul>
   */
  public record Lifecycle(
      Duration heartbeatInterval,
      Duration checkInterval,
      Duration maxDrain,
      String resultAtLimit,
      Duration launchReadyTimeout) {
    public static final Duration GLOBAL_TIMEOUT = Duration.ofHours(48);
    public static final Lifecycle DEFAULTS =
        new Lifecycle(
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofHours(1),
            "CONTINUE",
            Duration.ofMinutes(10));

    static Lifecycle from(Settings s) {
      // at least 30s: the shortest hook timeout
      Duration heartbeat =
          s.duration(
              "LIFECYCLE_HEARTBEAT_INTERVAL",
              DEFAULTS.heartbeatInterval(),
              Duration.ofSeconds(30),
              Duration.ofHours(1));
      Duration check =
          s.duration(
              "LIFECYCLE_CHECK_INTERVAL",
              DEFAULTS.checkInterval(),
              Duration.ofSeconds(10),
              Duration.ofMinutes(15));
      String result =
          s.oneOf(
              "LIFECYCLE_RESULT_AT_LIMIT", "CONTINUE", java.util.List.of("CONTINUE", "ABANDON"));
      return new Lifecycle(
          heartbeat,
          check,
          s.duration("LIFECYCLE_MAX_DRAIN", DEFAULTS.maxDrain(), GLOBAL_TIMEOUT),
          result,
          s.duration(
              "LIFECYCLE_LAUNCH_READY_TIMEOUT",
              DEFAULTS.launchReadyTimeout(),
              Duration.ofHours(1)));
    }
  }

  public DrainSettings withOptions(Options newOptions) {
    return new DrainSettings(
        clusterName,
        actions,
        deadlineMargin,
        skipDaemonSets,
        forceDeleteAtDeadline,
        taintKey,
        excludeFromLoadBalancers,
        evictionConcurrency,
        newOptions);
  }

  /** The same settings for another cluster of the stack. */
  public DrainSettings withClusterName(String name) {
    return new DrainSettings(
        name,
        actions,
        deadlineMargin,
        skipDaemonSets,
        forceDeleteAtDeadline,
        taintKey,
        excludeFromLoadBalancers,
        evictionConcurrency,
        options);
  }

  public static Map<DrainKind, Set<Action>> defaultActions() {
    var map = new EnumMap<DrainKind, Set<Action>>(DrainKind.class);
    map.put(DrainKind.SPOT_INTERRUPTION, EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN));
    map.put(DrainKind.HEALTH_SCHEDULED, EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN));
    map.put(DrainKind.REBALANCE, EnumSet.of(Action.TAINT, Action.CORDON));
    map.put(DrainKind.STATE_CHANGE, EnumSet.of(Action.CORDON, Action.DRAIN));
    map.put(DrainKind.ASG_TERMINATE, EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN));
    map.put(DrainKind.ASG_LAUNCH, EnumSet.noneOf(Action.class));
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
        s.integer("DRAIN_EVICTION_CONCURRENCY", 128, 1, 1000),
        Options.from(s));
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

package io.gpufleet.deploy;

import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.gpufleet.core.outcome.Metric;
import io.gpufleet.cost.CostMetrics;
import io.gpufleet.deploy.Doctor.Finding;
import io.gpufleet.deploy.Doctor.Status;
import io.gpufleet.drain.DrainMetrics;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.preflight.PreflightMetrics;
import io.gpufleet.schedule.NativeBudgets;
import io.gpufleet.schedule.ScheduleMetrics;
import io.gpufleet.schedule.model.ScheduleOutcome;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingGroup;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.Dimension;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataQuery;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataResult;
import software.amazon.awssdk.services.cloudwatch.model.ScanBy;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.eks.model.CapacityTypes;

/**
 * Two of {@link Doctor}'s checks about the fleet rather than the stack: Spot managed node groups
 * whose Auto Scaling group has Capacity Rebalancing, and the last successful run of each function
 * read from the metrics it publishes (the functions' metric declarations, the dashboard's source:
 * no metric name is written here).
 */
public final class DoctorFleet {
  public static final String REBALANCE_CHECK = "Spot capacity rebalancing";
  static final Duration DAY = Duration.ofHours(24);

  /** The metrics' resolution (EMF publishes standard, one-minute metrics). */
  static final int PERIOD_SECONDS = 60;

  private DoctorFleet() {}

  /** Each Spot managed node group's Auto Scaling groups: Capacity Rebalancing on. */
  static Finding capacityRebalance(EksClient eks, AutoScalingClient asg, String cluster) {
    var nodeGroupOf = new TreeMap<String, String>();
    int spot = 0;
    for (String name : eks.listNodegroupsPaginator(r -> r.clusterName(cluster)).nodegroups()) {
      var group =
          eks.describeNodegroup(r -> r.clusterName(cluster).nodegroupName(name)).nodegroup();
      if (group.capacityType() != CapacityTypes.SPOT) {
        continue;
      }
      spot++;
      if (group.resources() != null) {
        group.resources().autoScalingGroups().forEach(a -> nodeGroupOf.put(a.name(), name));
      }
    }
    if (spot == 0) {
      return new Finding(
          REBALANCE_CHECK, Status.PASS, "no Spot managed node group in cluster " + cluster, "");
    }
    var found = new TreeMap<String, AutoScalingGroup>();
    var names = new ArrayList<>(nodeGroupOf.keySet());
    for (int i = 0; i < names.size(); i += 50) {
      var batch = names.subList(i, Math.min(names.size(), i + 50));
      asg.describeAutoScalingGroupsPaginator(r -> r.autoScalingGroupNames(batch))
          .autoScalingGroups()
          .forEach(g -> found.put(g.autoScalingGroupName(), g));
    }
    var off = new ArrayList<String>();
    var problems = new ArrayList<String>();
    nodeGroupOf.forEach(
        (name, nodeGroup) -> {
          var g = found.get(name);
          if (g == null) {
            problems.add(
                "node group " + nodeGroup + ": its Auto Scaling group " + name + " is gone");
          } else if (!Boolean.TRUE.equals(g.capacityRebalance())) {
            off.add(name);
            problems.add(
                "node group "
                    + nodeGroup
                    + " (Spot): Auto Scaling group "
                    + name
                    + " has Capacity Rebalancing off");
          }
        });
    if (problems.isEmpty()) {
      return new Finding(
          REBALANCE_CHECK,
          Status.PASS,
          spot + " Spot node group(s), each Auto Scaling group with Capacity Rebalancing",
          "");
    }
    String fix =
        off.isEmpty()
            ? "recreate the node group (aws eks describe-nodegroup shows its health issues)"
            : String.join(
                "; ",
                off.stream()
                    .map(
                        n ->
                            "aws autoscaling update-auto-scaling-group --auto-scaling-group-name "
                                + n
                                + " --capacity-rebalance")
                    .toList());
    return new Finding(
        REBALANCE_CHECK,
        Status.WARN,
        String.join("; ", problems)
            + ": without it the group launches a replacement for a Spot node only"
            + " after the node is gone, not on the rebalance recommendation",
        fix);
  }

  /**
   * What counts as a successful run of one function: the counters it publishes for one, how far
   * back to look, and what no run in that window means.
   */
  record Watched(
      String service,
      List<Metric> success,
      Duration window,
      Status missing,
      String missingDetail,
      String fix) {
    String check() {
      return "last run: " + service;
    }
  }

  /** The four functions' success counters and windows for a stack with these parameters. */
  static List<Watched> watched(Map<String, String> parameters, String stack, Instant now) {
    var drain =
        Stream.of(DrainOutcome.Status.values())
            .filter(s -> s != DrainOutcome.Status.REJECTED)
            .map(DrainMetrics::events)
            .toList();
    boolean dryRun = "true".equalsIgnoreCase(parameters.get("ScheduleDryRun"));
    var schedule = new ArrayList<Metric>();
    schedule.add(ScheduleMetrics.RUNS.get(ScheduleOutcome.Status.RECONCILED));
    if (dryRun) {
      schedule.add(ScheduleMetrics.RUNS.get(ScheduleOutcome.Status.DRY_RUN));
    }
    String expression = parameters.getOrDefault("ScheduleExpression", "");
    var schedulePeriod = period(expression, zone(parameters.get("ScheduleTimezone")), now);
    var scheduleWindow = schedulePeriod.multipliedBy(2);
    String preflightExpression = parameters.getOrDefault("PreflightScheduleExpression", "");
    var preflightWindow =
        max(
            DAY,
            period(preflightExpression, zone(parameters.get("PreflightScheduleTimezone")), now)
                .multipliedBy(2));
    var costWindow =
        "hourly".equals(parameters.get("CostReportSchedule")) ? DAY : DAY.multipliedBy(2);
    return List.of(
        new Watched(
            DrainMetrics.SERVICE,
            drain,
            DAY,
            Status.WARN,
            "no interruption event handled in " + hours(DAY) + " (normal when AWS sent none)",
            "nothing to do if no Spot interruption, rebalance, Health or lifecycle event came;"
                + " to see the drain act: ./gpufleet rehearse"),
        new Watched(
            ScheduleMetrics.SERVICE,
            schedule,
            scheduleWindow,
            Status.FAIL,
            "no reconcile for two periods of "
                + expression
                + " ("
                + scheduleWindow.toMinutes()
                + " min): workloads may be stuck at the other window's value",
            "read the function's log (aws logs tail /aws/lambda/FUNCTION); an invalid policy shows"
                + " as "
                + ScheduleMetrics.RUNS.get(ScheduleOutcome.Status.INVALID_POLICY).name()
                + "; check the schedule is enabled: aws scheduler list-schedules --name-prefix "
                + stack),
        new Watched(
            PreflightMetrics.SERVICE,
            List.copyOf(PreflightMetrics.REGIONS.values()),
            preflightWindow,
            Status.WARN,
            "no preflight run in " + hours(preflightWindow) + " (" + preflightExpression + ")",
            "aws scheduler get-schedule --name " + stack + "-preflight-daily; read its log"),
        new Watched(
            CostMetrics.SERVICE,
            List.of(CostMetrics.REPORTS_WRITTEN),
            costWindow,
            Status.WARN,
            "no cost report written in " + hours(costWindow),
            "aws scheduler list-schedules --name-prefix " + stack + "; read the function's log"));
  }

  /** One finding per function: the time of its last successful run, from its metrics. */
  static List<Finding> lastRuns(
      CloudWatchClient cloudWatch, Map<String, String> parameters, String stack, Instant now) {
    var end = now.truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1));
    var out = new ArrayList<Finding>();
    for (var w : watched(parameters, stack, now)) {
      var last = lastDatapoint(cloudWatch, w, end.minus(w.window()), end);
      if (last.isPresent()) {
        var at = last.get();
        out.add(
            new Finding(
                w.check(),
                Status.PASS,
                "last successful run " + at + " (" + ago(Duration.between(at, now)) + " ago)",
                ""));
      } else {
        out.add(new Finding(w.check(), w.missing(), w.missingDetail(), w.fix()));
      }
    }
    return out;
  }

  private static Optional<Instant> lastDatapoint(
      CloudWatchClient cloudWatch, Watched w, Instant start, Instant end) {
    var queries = new ArrayList<MetricDataQuery>();
    for (var m : w.success()) {
      if (!m.dimensions().isEmpty()) {
        throw new IllegalArgumentException(m.name() + " has dimensions of its own");
      }
      queries.add(
          MetricDataQuery.builder()
              .id("m" + queries.size())
              .label(m.name())
              .returnData(true)
              .metricStat(
                  s ->
                      s.period(PERIOD_SECONDS)
                          .stat("Sum")
                          .metric(
                              mt ->
                                  mt.namespace(Metric.NAMESPACE)
                                      .metricName(m.name())
                                      .dimensions(
                                          Dimension.builder()
                                              .name(Metric.SERVICE)
                                              .value(w.service())
                                              .build())))
              .build());
    }
    Instant last = null;
    for (MetricDataResult r :
        cloudWatch
            .getMetricDataPaginator(
                q ->
                    q.metricDataQueries(queries)
                        .startTime(start)
                        .endTime(end)
                        .scanBy(ScanBy.TIMESTAMP_DESCENDING))
            .metricDataResults()) {
      for (int i = 0; i < r.timestamps().size() && i < r.values().size(); i++) {
        var at = r.timestamps().get(i);
        if (r.values().get(i) > 0 && (last == null || at.isAfter(last))) {
          last = at;
        }
      }
    }
    return Optional.ofNullable(last);
  }

  private static final Pattern RATE =
      Pattern.compile("rate\\((\\d+)\\s+(minute|minutes|hour|hours|day|days)\\)");

  /**
   * The time between two runs of an EventBridge Scheduler expression: {@code rate(N unit)}, or the
   * longest gap among the next runs of a {@code cron(...)} in {@code zone}.
   */
  public static Duration period(String expression, ZoneId zone, Instant now) {
    String e = expression.strip();
    var rate = RATE.matcher(e);
    if (rate.matches()) {
      long n = Long.parseLong(rate.group(1));
      return switch (rate.group(2).charAt(0)) {
        case 'm' -> Duration.ofMinutes(n);
        case 'h' -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    if (e.startsWith("cron(") && e.endsWith(")")) {
      var cron =
          new CronParser(NativeBudgets.EVENTBRIDGE).parse(e.substring(5, e.length() - 1).strip());
      var times = ExecutionTime.forCron(cron);
      ZonedDateTime at = now.atZone(zone);
      Duration longest = Duration.ZERO;
      for (int i = 0; i < 8; i++) {
        var next = times.nextExecution(at);
        if (next.isEmpty()) {
          break;
        }
        if (i > 0) {
          longest = max(longest, Duration.between(at, next.get()));
        }
        at = next.get();
      }
      if (!longest.isZero()) {
        return longest;
      }
    }
    throw new IllegalArgumentException(
        "schedule expression " + expression + " is neither rate(N unit) nor a recurring cron()");
  }

  private static ZoneId zone(String id) {
    return id == null || id.isBlank() ? ZoneId.of("UTC") : ZoneId.of(id);
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static String ago(Duration d) {
    return d.compareTo(Duration.ofHours(2)) < 0 ? d.toMinutes() + " min" : d.toHours() + " h";
  }

  private static String hours(Duration d) {
    return d.toHours() + " h";
  }
}

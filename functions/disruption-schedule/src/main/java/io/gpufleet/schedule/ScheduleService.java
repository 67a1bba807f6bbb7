package io.gpufleet.schedule;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.schedule.model.Change;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.model.ScheduleOutcome.Status;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.policy.Policy;
import io.gpufleet.schedule.policy.PolicyException;
import io.gpufleet.schedule.policy.PolicyParser;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * One run: dedupe the tick, read and validate the policy (before any write), read the cluster, plan
 * for now, apply only what differs (concurrently, bounded), report.
 */
public final class ScheduleService {
  private final ScheduleSettings settings;
  private final PolicySourcePort policySource;
  private final ScheduleClusterPort cluster;
  private final OutcomeReporter<ScheduleOutcome> reporter;
  private final Clock clock;
  private final TickDeduper deduper = new TickDeduper(512);
  private HoldRecords.Recorder records = HoldRecords.Recorder.OFF;

  public ScheduleService(
      ScheduleSettings settings,
      PolicySourcePort policySource,
      ScheduleClusterPort cluster,
      OutcomeReporter<ScheduleOutcome> reporter,
      Clock clock) {
    this.settings = settings;
    this.policySource = policySource;
    this.cluster = cluster;
    this.reporter = reporter;
    this.clock = clock;
  }

  /** After each reconcile, what is held down is recorded there (off by default). */
  public ScheduleService withRecords(HoldRecords.Recorder recorder) {
    this.records = recorder;
    return this;
  }

  /** A scheduler tick (deduplicated); the reconcile is for the clock's now. */
  public ScheduleOutcome handle(ScheduleTick.Decoded decoded) {
    Instant now = clock.instant();
    if (decoded instanceof ScheduleTick.Rejected r) {
      return reporter.report(
          ScheduleOutcome.simple(
              Status.REJECTED, settings.clusterName(), null, null, now, r.reason()));
    }
    ScheduleTick tick = ((ScheduleTick.Ok) decoded).tick();
    switch (deduper.admit(tick)) {
      case DUPLICATE -> {
        return reporter.report(
            ScheduleOutcome.simple(
                Status.DUPLICATE,
                settings.clusterName(),
                tick.scheduleArn(),
                tick.scheduledTime(),
                now,
                "tick " + tick.key() + " was already handled"));
      }
      case SUPERSEDED -> {
        return reporter.report(
            ScheduleOutcome.simple(
                Status.SUPERSEDED,
                settings.clusterName(),
                tick.scheduleArn(),
                tick.scheduledTime(),
                now,
                "a newer tick of this schedule was already handled"));
      }
      case NEW -> {}
    }
    try {
      return reconcile(now, settings.dryRun() || tick.dryRun(), tick);
    } catch (RuntimeException e) {
      deduper.forget(tick);
      throw e;
    }
  }

  /** Loads and validates the policy; a precise {@link ConfigException} when it is unusable. */
  public Policy policy() {
    String text;
    try {
      text = policySource.load();
    } catch (ConfigException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ConfigException(
          "cannot read policy " + policySource.name() + ": " + e.getMessage());
    }
    Policy policy = PolicyParser.parse(text, policySource.name());
    var broken = settings.guardrails().problems(policy);
    if (!broken.isEmpty()) {
      throw new PolicyException(policySource.name() + " (guardrails)", broken);
    }
    return policy;
  }

  /** A reconcile for {@code at} (the CLI's --at; the Lambda passes the clock's now). */
  public ScheduleOutcome reconcile(Instant at, boolean dryRun, ScheduleTick tick) {
    long t0 = System.nanoTime();
    Policy policy;
    try {
      policy = policy();
    } catch (ConfigException e) {
      return reporter.report(
          ScheduleOutcome.simple(
              Status.INVALID_POLICY,
              settings.clusterName(),
              tick == null ? null : tick.scheduleArn(),
              tick == null ? null : tick.scheduledTime(),
              at,
              e.getMessage()));
    }
    return reporter.report(run(policy, at, dryRun, tick, t0));
  }

  /** The reconcile itself, for a policy already validated. */
  public ScheduleOutcome run(
      Policy policy, Instant at, boolean dryRun, ScheduleTick tick, long t0) {
    List<TargetState> pools = policy.nodePools().isEmpty() ? List.of() : cluster.nodePools();
    // a rule that names no namespace still never touches a protected one
    List<TargetState> workloads =
        cluster.workloads().stream()
            .filter(w -> !settings.guardrails().protects(w.ref().namespace()))
            .toList();
    Planner.Plan plan = Planner.plan(policy, at, pools, workloads);
    var changes = new ArrayList<Change>();
    var notices = new ArrayList<Change>();
    var writes = new ArrayList<Planner.Step>();
    for (Planner.Step s : plan.steps()) {
      if (s.write() == null) {
        notices.add(s.change());
      } else {
        writes.add(s);
      }
    }
    int failed = 0;
    boolean capped = !dryRun && writes.size() > settings.guardrails().maxChanges();
    if (dryRun || capped) {
      writes.forEach(s -> changes.add(s.change().withResult(Change.Result.DRY_RUN, null)));
    } else {
      for (Change c : execute(writes)) {
        changes.add(c);
        if (c.result() == Change.Result.FAILED) {
          failed++;
        }
      }
    }
    int written = dryRun || capped ? 0 : changes.size() - failed;
    Status status =
        capped
            ? Status.GUARDRAIL
            : dryRun ? Status.DRY_RUN : failed > 0 ? Status.PARTIAL : Status.RECONCILED;
    var w = plan.window();
    if (records.enabled()) {
      record(pools, workloads, writes, changes, at, tick, w.name());
    }
    String message =
        capped
            ? "refused: the run would change "
                + writes.size()
                + " objects, more than the "
                + settings.guardrails().maxChanges()
                + " a run may change (SCHEDULE_MAX_CHANGES); nothing written for window "
                + w.name()
            : (dryRun ? "would write " + changes.size() : "wrote " + written)
                + " objects for window "
                + w.name()
                + (failed > 0 ? "; " + failed + " writes failed (the next run retries them)" : "");
    return new ScheduleOutcome(
        status,
        settings.clusterName(),
        tick == null ? null : tick.scheduleArn(),
        tick == null ? null : tick.scheduledTime(),
        at,
        policy.zone().getId(),
        w.localTime().toOffsetDateTime().toString(),
        w.name(),
        w.why().name(),
        dryRun,
        written,
        failed,
        List.copyOf(changes),
        List.copyOf(notices),
        message,
        (System.nanoTime() - t0) / 1_000_000,
        settings.guardrails().describe());
  }

  /**
   * The run's hold record (guarded: a failed write is logged and counted, the reconcile stands; the
   * next run records the state again).
   */
  private void record(
      List<TargetState> pools,
      List<TargetState> workloads,
      List<Planner.Step> writes,
      List<Change> results,
      Instant at,
      ScheduleTick tick,
      String window) {
    var written = new java.util.HashMap<String, Change>();
    for (int i = 0; i < writes.size(); i++) {
      written.put(HoldRecords.key(writes.get(i).write().ref()), results.get(i));
    }
    var states = new ArrayList<TargetState>(pools);
    states.addAll(workloads);
    var holds = HoldRecords.after(states, written, records.teamLabel());
    reporter.deliver(
        "schedule records",
        () ->
            records.write(
                settings.clusterName(),
                at,
                tick == null ? null : tick.scheduledTime(),
                window,
                holds));
  }

  /** Applies every write on virtual threads, at most writeConcurrency in flight; order kept. */
  private List<Change> execute(List<Planner.Step> writes) {
    var limit = new Semaphore(settings.writeConcurrency());
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<Change>>();
      for (Planner.Step s : writes) {
        Callable<Change> call =
            () -> {
              limit.acquire();
              try {
                cluster.apply(s.write());
                Change done = s.change().withResult(Change.Result.APPLIED, null);
                if (settings.kubeEvents()) {
                  reporter.deliver(
                      "kubernetes event",
                      () -> ScheduleReporting.recordEvent(cluster, s.write().ref(), done));
                }
                return done;
              } catch (RuntimeException e) {
                return s.change().withResult(Change.Result.FAILED, describe(e));
              } finally {
                limit.release();
              }
            };
        futures.add(pool.submit(call));
      }
      var out = new ArrayList<Change>();
      for (Future<Change> f : futures) {
        out.add(f.get());
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while applying", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  private static String describe(RuntimeException e) {
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }
}

package io.gpufleet.drain;

import io.gpufleet.core.lambda.RestoreSafeRandom;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.model.CheckpointReport;
import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.PodInfo;
import io.gpufleet.drain.model.PodReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.stream.Collectors;

/**
 * Evicts a node's pods concurrently (virtual threads, bounded by a semaphore), retrying 429 with
 * jittered backoff until the deadline, then waits for the pods to be gone. Critical pods go in a
 * second wave once the first is gone (or time is short). All waiting goes through the injected
 * {@link Sleeper} and all time through the {@link Clock}.
 */
public final class Drainer {
  static final Duration BACKOFF_BASE = Duration.ofMillis(200);
  static final Duration BACKOFF_MAX = Duration.ofSeconds(3);
  static final Duration POLL = Duration.ofMillis(250);
  static final Duration FORCE_RESERVE = Duration.ofSeconds(3);
  static final int MAX_ERROR_RETRIES = 4;

  private final DrainClusterPort cluster;
  private final Clock clock;
  private final Sleeper sleeper;
  private final DrainSettings settings;

  public Drainer(DrainClusterPort cluster, Clock clock, Sleeper sleeper, DrainSettings settings) {
    this.cluster = cluster;
    this.clock = clock;
    this.sleeper = sleeper;
    this.settings = settings;
  }

  /** What the drain ended with: one report per pod it tried, and when milestones were reached. */
  public record Result(
      List<PodReport> reports,
      Instant allIssuedAt,
      Instant allGoneAt,
      List<CheckpointReport> checkpoints) {
    public Result(List<PodReport> reports, Instant allIssuedAt, Instant allGoneAt) {
      this(reports, allIssuedAt, allGoneAt, List.of());
    }

    /**
     * Two drains of one node, {@code later} after {@code earlier}: every report, the later
     * milestones (all gone only when both got there).
     */
    public static Result merged(Result earlier, Result later) {
      var reports = new ArrayList<>(earlier.reports());
      reports.addAll(later.reports());
      var checkpoints = new ArrayList<>(earlier.checkpoints());
      checkpoints.addAll(later.checkpoints());
      return new Result(
          List.copyOf(reports),
          later.allIssuedAt() != null ? later.allIssuedAt() : earlier.allIssuedAt(),
          earlier.allGoneAt() == null || later.allGoneAt() == null ? null : later.allGoneAt(),
          List.copyOf(checkpoints));
    }
  }

  /**
   * The drain of {@code plan}: the pods that opted in to checkpointing are told first ({@link
   * CheckpointWait}) and their evictions wait for their checkpoints within the deadline.
   */
  public Result run(String nodeName, DrainPolicy.Selection selection, DrainPolicy.Plan plan)
      throws InterruptedException {
    var wait =
        CheckpointWait.tell(
            cluster, clock, sleeper, nodeName, plan.kind(), plan.deadline(), selection.evictable());
    var r =
        run(
            nodeName,
            selection,
            plan.deadline(),
            plan.deadline(),
            settings.forceDeleteAtDeadline(),
            wait);
    return new Result(r.reports(), r.allIssuedAt(), r.allGoneAt(), wait.reports());
  }

  public Result run(String nodeName, DrainPolicy.Selection selection, Instant deadline)
      throws InterruptedException {
    return run(nodeName, selection, deadline, deadline, settings.forceDeleteAtDeadline());
  }

  /**
   * As {@link #run(String, DrainPolicy.Selection, Instant)}, for a drain that may go on after this
   * {@code deadline} (a lifecycle hook held by heartbeats): grace periods are capped to {@code
   * graceUntil} instead, and force-delete happens only when {@code forceAtDeadline}.
   */
  public Result run(
      String nodeName,
      DrainPolicy.Selection selection,
      Instant deadline,
      Instant graceUntil,
      boolean forceAtDeadline)
      throws InterruptedException {
    return run(nodeName, selection, deadline, graceUntil, forceAtDeadline, CheckpointWait.NONE);
  }

  /** As above, the evictions of opted-in pods waiting for their checkpoints ({@code wait}). */
  public Result run(
      String nodeName,
      DrainPolicy.Selection selection,
      Instant deadline,
      Instant graceUntil,
      boolean forceAtDeadline,
      CheckpointWait wait)
      throws InterruptedException {
    Instant evictUntil = forceAtDeadline ? deadline.minus(FORCE_RESERVE) : deadline;

    var reports = new LinkedHashMap<String, PodReport>();
    var waitFor = new LinkedHashMap<String, PodInfo>();
    selection.terminating().forEach(p -> waitFor.put(p.uid(), p));

    Instant firstWaveCutoff = criticalCutoff(evictUntil, !selection.critical().isEmpty());
    Instant issued1 =
        evictAll(selection.first(), firstWaveCutoff, graceUntil, reports, waitFor, wait);
    awaitGone(nodeName, waitFor, firstWaveCutoff);
    Instant issued2 =
        evictAll(selection.critical(), evictUntil, graceUntil, reports, waitFor, wait);
    Instant allIssued = issued2 != null ? issued2 : issued1;
    Instant allGone = awaitGone(nodeName, waitFor, evictUntil);

    if (!waitFor.isEmpty() || reports.values().stream().anyMatch(r -> !r.madeIt())) {
      finishLeftovers(reports, waitFor, forceAtDeadline);
    }
    for (PodInfo p : selection.terminating()) {
      reports.putIfAbsent(
          p.uid(),
          new PodReport(
              p.key(),
              waitFor.containsKey(p.uid())
                  ? PodReport.Status.STILL_TERMINATING
                  : PodReport.Status.GONE,
              "was already terminating when the drain started",
              0,
              null,
              null,
              DrainPolicy.isCritical(p)));
    }
    return new Result(List.copyOf(reports.values()), allIssued, allGone);
  }

  /** First wave may use the time up to a reserve that leaves the critical wave room to act. */
  private Instant criticalCutoff(Instant until, boolean hasCritical) {
    if (!hasCritical) {
      return until;
    }
    Duration left = Duration.between(clock.instant(), until);
    Duration reserve = left.dividedBy(4);
    if (reserve.compareTo(Duration.ofSeconds(15)) > 0) {
      reserve = Duration.ofSeconds(15);
    }
    return until.minus(reserve);
  }

  private Instant evictAll(
      List<PodInfo> pods,
      Instant until,
      Instant graceUntil,
      Map<String, PodReport> reports,
      Map<String, PodInfo> waitFor,
      CheckpointWait wait)
      throws InterruptedException {
    if (pods.isEmpty()) {
      return null;
    }
    var gate = new Semaphore(settings.evictionConcurrency());
    var results = new ConcurrentHashMap<String, PodReport>();
    var firstAnswers = new java.util.concurrent.atomic.AtomicReference<Instant>();
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<?>>();
      for (PodInfo pod : pods) {
        futures.add(
            pool.submit(
                () -> {
                  boolean held = wait.awaitTurn(pod, until);
                  gate.acquire();
                  try {
                    Attempt attempt = evictOne(pod, until, graceUntil);
                    wait.evicted(pod, attempt.firstAnswer());
                    results.put(pod.uid(), attempt.report());
                    if (!held) { // a pod held for its checkpoint is reported in its own timeline
                      firstAnswers.accumulateAndGet(attempt.firstAnswer(), Drainer::later);
                    }
                  } finally {
                    gate.release();
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw new IllegalStateException("eviction task failed", e.getCause());
        }
      }
    }
    // "issued": every pod has had its first eviction answered (retries of refused ones may follow)
    Instant issued = firstAnswers.get() == null ? clock.instant() : firstAnswers.get();
    for (PodInfo pod : pods) {
      PodReport r = results.get(pod.uid());
      reports.put(pod.uid(), r);
      if (r.status() == PodReport.Status.EVICTED) {
        waitFor.put(pod.uid(), pod);
      }
    }
    return issued;
  }

  /** One pod's result, and when the API server first answered for it. */
  record Attempt(PodReport report, Instant firstAnswer) {}

  private static Instant later(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isAfter(b) ? a : b;
  }

  Attempt evictOne(PodInfo pod, Instant until, Instant graceLimit) throws InterruptedException {
    Instant firstAnswer = null;
    long requested = DrainPolicy.requestedGrace(pod);
    boolean critical = DrainPolicy.isCritical(pod);
    int attempts = 0;
    int errors = 0;
    long granted = requested;
    String lastReason = "deadline passed before the first eviction attempt";
    Duration backoff = BACKOFF_BASE;
    while (true) {
      Duration left = Duration.between(clock.instant(), until);
      if (attempts > 0 && (left.isNegative() || left.isZero())) {
        boolean blocked = lastReason.startsWith("429");
        return new Attempt(
            new PodReport(
                pod.key(),
                blocked ? PodReport.Status.BLOCKED : PodReport.Status.FAILED,
                lastReason,
                attempts,
                requested,
                granted,
                critical),
            firstAnswer);
      }
      granted =
          DrainPolicy.grantedGrace(
              pod,
              graceLimit == null || !graceLimit.isAfter(until)
                  ? left
                  : Duration.between(clock.instant(), graceLimit));
      attempts++;
      EvictionResult result = cluster.evict(pod, granted);
      if (attempts == 1) {
        firstAnswer = clock.instant();
      }
      switch (result) {
        case EvictionResult.Evicted e -> {
          return new Attempt(
              new PodReport(
                  pod.key(),
                  PodReport.Status.EVICTED,
                  null,
                  attempts,
                  requested,
                  granted,
                  critical),
              firstAnswer);
        }
        case EvictionResult.Gone g -> {
          return new Attempt(
              new PodReport(
                  pod.key(), PodReport.Status.GONE, "already gone", attempts, null, null, critical),
              firstAnswer);
        }
        case EvictionResult.MultiplePdb m -> {
          return new Attempt(
              new PodReport(
                  pod.key(),
                  PodReport.Status.CONFIG_ERROR,
                  "more than one PodDisruptionBudget selects this pod: " + m.message(),
                  attempts,
                  requested,
                  null,
                  critical),
              firstAnswer);
        }
        case EvictionResult.Blocked b -> lastReason = "429 " + b.message();
        case EvictionResult.Failed f -> {
          lastReason = "API error " + f.code() + ": " + f.message();
          if (!f.retryable() || ++errors > MAX_ERROR_RETRIES) {
            return new Attempt(
                new PodReport(
                    pod.key(),
                    PodReport.Status.FAILED,
                    lastReason,
                    attempts,
                    requested,
                    null,
                    critical),
                firstAnswer);
          }
        }
      }
      Duration remaining = Duration.between(clock.instant(), until);
      if (remaining.isNegative() || remaining.isZero()) {
        continue; // report on the next loop turn
      }
      Duration jittered = jitter(backoff);
      sleeper.sleep(jittered.compareTo(remaining) < 0 ? jittered : remaining);
      backoff =
          backoff.multipliedBy(2).compareTo(BACKOFF_MAX) > 0
              ? BACKOFF_MAX
              : backoff.multipliedBy(2);
    }
  }

  /** Between half and all of the backoff, so retries of many pods do not arrive in lockstep. */
  static Duration jitter(Duration backoff) {
    long ms = backoff.toMillis();
    return Duration.ofMillis(ms / 2 + RestoreSafeRandom.nextLong(ms / 2 + 1));
  }

  /** Polls the node's pods until none we wait for remain; returns when that happened, or null. */
  private Instant awaitGone(String nodeName, Map<String, PodInfo> waitFor, Instant until)
      throws InterruptedException {
    while (!waitFor.isEmpty()) {
      Set<String> present =
          cluster.podsOnNode(nodeName).stream().map(PodInfo::uid).collect(Collectors.toSet());
      waitFor.keySet().retainAll(present);
      if (waitFor.isEmpty()) {
        break;
      }
      Duration left = Duration.between(clock.instant(), until);
      if (left.isNegative() || left.isZero()) {
        return null;
      }
      sleeper.sleep(POLL.compareTo(left) < 0 ? POLL : left);
    }
    return clock.instant();
  }

  /** At the deadline: force-delete what is left if configured, and label what did not make it. */
  private void finishLeftovers(
      Map<String, PodReport> reports, Map<String, PodInfo> waitFor, boolean force) {
    var stillThere = new HashSet<>(waitFor.keySet());
    if (force) {
      for (var entry : reports.entrySet()) {
        PodReport r = entry.getValue();
        if (!r.madeIt() || stillThere.contains(entry.getKey())) {
          // The pod object is needed to delete; rebuild the minimal identity from the report key.
          String[] nsName = r.pod().split("/", 2);
          var pod = PodInfo.ref(nsName[0], nsName[1], entry.getKey());
          cluster.forceDelete(pod);
          entry.setValue(
              r.with(
                  PodReport.Status.FORCE_DELETED,
                  "force-deleted at the deadline"
                      + (r.reason() == null ? "" : " after: " + r.reason())));
          stillThere.remove(entry.getKey());
        }
      }
    }
    for (String uid : stillThere) {
      PodReport r = reports.get(uid);
      if (r != null && r.status() == PodReport.Status.EVICTED) {
        reports.put(
            uid,
            r.with(
                PodReport.Status.STILL_TERMINATING,
                "eviction accepted, pod still terminating at the deadline"));
      }
    }
  }
}

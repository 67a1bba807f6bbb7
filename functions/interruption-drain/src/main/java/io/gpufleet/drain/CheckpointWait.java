package io.gpufleet.drain;

import io.gpufleet.core.k8s.CheckpointAnnotations;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.model.CheckpointReport;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.PodInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checkpoint-aware part of one drain. Pods that opt in with the annotation {@link #CHECKPOINT}
 * (the longest the workload wants, e.g. {@code "90s"}) are told at once, on any warning: the
 * annotations {@link #KIND} and {@link #DEADLINE} (RFC 3339, for kinds that have one) and an
 * events.k8s.io/v1 Event. For kinds with a deadline, the eviction of such a pod waits until it
 * reports {@link #DONE} or until the latest moment at which the eviction plus its grace period
 * still ends before the deadline, whichever is first, and never longer than it asked for; every
 * other pod is evicted without waiting. All waiting goes through the injected {@link Sleeper}.
 */
public final class CheckpointWait {
  public static final String CHECKPOINT = CheckpointAnnotations.CHECKPOINT;
  public static final String KIND = CheckpointAnnotations.KIND;
  public static final String DEADLINE = CheckpointAnnotations.DEADLINE;
  public static final String DONE = CheckpointAnnotations.DONE;

  /** How often the node's pods are re-read for {@link #DONE} while any eviction waits. */
  static final Duration POLL = Duration.ofSeconds(1);

  /** Time left for the eviction request itself before the pod's grace period starts. */
  static final Duration EVICT_RESERVE = Duration.ofSeconds(2);

  /** Kinds whose plan deadline is when the instance goes (not the function's own time limit). */
  static final Set<DrainKind> WITH_DEADLINE =
      EnumSet.of(
          DrainKind.SPOT_INTERRUPTION,
          DrainKind.CAPACITY_RESERVATION_INTERRUPTION,
          DrainKind.CAPACITY_BLOCK_EXPIRING,
          DrainKind.HEALTH_SCHEDULED,
          DrainKind.ASG_TERMINATE);

  private static final Pattern DURATION = Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?");

  /** A drain without opted-in pods: nothing told, nothing waits. */
  public static final CheckpointWait NONE =
      new CheckpointWait(null, null, null, null, false, Map.of());

  private final DrainClusterPort cluster;
  private final Clock clock;
  private final Sleeper sleeper;
  private final String node;
  private final boolean waits;
  private final Map<String, Entry> entries;
  private final Object pollLock = new Object();
  private Instant lastPoll;

  /** One opted-in pod's timeline (written by its eviction thread and the poller). */
  private static final class Entry {
    final PodInfo pod;
    final String wantsText;
    final Duration wants;
    volatile Instant toldAt;
    volatile Instant doneAt;
    volatile String reported;
    volatile Instant latest;
    volatile Instant evictedAt;
    volatile String note;

    Entry(PodInfo pod, String wantsText, Duration wants, String note) {
      this.pod = pod;
      this.wantsText = wantsText;
      this.wants = wants;
      this.note = note;
    }
  }

  private CheckpointWait(
      DrainClusterPort cluster,
      Clock clock,
      Sleeper sleeper,
      String node,
      boolean waits,
      Map<String, Entry> entries) {
    this.cluster = cluster;
    this.clock = clock;
    this.sleeper = sleeper;
    this.node = node;
    this.waits = waits;
    this.entries = entries;
  }

  /** The pods of {@code pods} that opted in (and are not already terminating). */
  public static List<PodInfo> optedIn(List<PodInfo> pods) {
    return pods.stream()
        .filter(p -> !p.terminating() && p.annotations().containsKey(CHECKPOINT))
        .toList();
  }

  /** "90s", "5m", "1h30m" (Go duration units h, m, s); null when unreadable or empty. */
  static Duration parse(String text) {
    Matcher m = text == null ? null : DURATION.matcher(text.trim());
    if (m == null || !m.matches() || text.isBlank()) {
      return null;
    }
    long s = 0;
    for (int g = 1; g <= 3; g++) {
      if (m.group(g) != null) {
        s += Long.parseLong(m.group(g)) * (g == 1 ? 3600 : g == 2 ? 60 : 1);
      }
    }
    return Duration.ofSeconds(s);
  }

  /**
   * For a kind that does not drain (a rebalance recommendation): tells the node's opted-in pods,
   * without a deadline. A failed listing tells nobody and does not fail the event.
   */
  public static CheckpointWait tellNode(
      DrainClusterPort cluster, Clock clock, Sleeper sleeper, String node, DrainKind kind)
      throws InterruptedException {
    List<PodInfo> pods;
    try {
      pods = cluster.podsOnNode(node);
    } catch (RuntimeException e) {
      return NONE;
    }
    return tell(cluster, clock, sleeper, node, kind, null, pods);
  }

  /**
   * Tells every opted-in pod of {@code pods} (in parallel) that its node is interrupted: {@code
   * deadline} null for kinds without one. A pod that cannot be told is noted and then evicted
   * without waiting; telling never fails the drain.
   */
  public static CheckpointWait tell(
      DrainClusterPort cluster,
      Clock clock,
      Sleeper sleeper,
      String node,
      DrainKind kind,
      Instant deadline,
      List<PodInfo> pods)
      throws InterruptedException {
    var opted = optedIn(pods);
    if (opted.isEmpty()) {
      return NONE;
    }
    boolean hasDeadline = deadline != null && WITH_DEADLINE.contains(kind);
    var entries = new ConcurrentHashMap<String, Entry>();
    var notices = cluster.podNotices();
    var annotations = new HashMap<String, String>();
    annotations.put(KIND, kind.label());
    annotations.put(DEADLINE, hasDeadline ? deadline.toString() : null);
    annotations.put(DONE, null); // a report of an earlier warning does not count for this one
    String note =
        hasDeadline
            ? "node "
                + node
                + " will be interrupted ("
                + kind.label()
                + "); checkpoint now: this pod is evicted by "
                + deadline
                + " or once it sets "
                + DONE
            : "node " + node + " may be interrupted (" + kind.label() + "); no deadline yet";
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (PodInfo pod : opted) {
        String text = pod.annotations().get(CHECKPOINT);
        Duration wants = parse(text);
        var e =
            new Entry(
                pod,
                text,
                wants == null ? Duration.ZERO : wants,
                wants == null
                    ? "unreadable " + CHECKPOINT + " '" + text + "' (want e.g. 90s): not waited for"
                    : null);
        entries.put(pod.uid(), e);
        pool.submit(
            () -> {
              try {
                if (!notices.annotate(pod, annotations)) {
                  e.note = "gone before it could be told";
                  return;
                }
                e.toldAt = clock.instant();
                notices.recordPodEvent(pod, hasDeadline, "InterruptionWarning", "Checkpoint", note);
              } catch (RuntimeException ex) {
                e.note =
                    (e.toldAt == null ? "could not be told: " : "told, but its Event failed: ")
                        + ex.getMessage();
              }
            });
      }
    }
    return new CheckpointWait(cluster, clock, sleeper, node, hasDeadline, entries);
  }

  /**
   * Blocks the eviction of {@code pod} (from its own thread) until it reported its checkpoint,
   * asked no longer, or the latest moment at which its eviction, with its grace period, still ends
   * by {@code until}. Returns at once for pods that did not opt in or were not told; true when the
   * pod was held (it opted in and was told of a kind with a deadline).
   */
  public boolean awaitTurn(PodInfo pod, Instant until) throws InterruptedException {
    Entry e = entries.get(pod.uid());
    if (e == null || e.toldAt == null || !waits) {
      return false;
    }
    Instant latest = until.minusSeconds(DrainPolicy.requestedGrace(pod)).minus(EVICT_RESERVE);
    e.latest = latest;
    Instant asked = e.toldAt.plus(e.wants);
    Instant stop = asked.isBefore(latest) ? asked : latest;
    while (e.doneAt == null) {
      Instant now = clock.instant();
      Duration left = Duration.between(now, stop);
      if (left.isNegative() || left.isZero()) {
        return true;
      }
      poll(now);
      if (e.doneAt != null) {
        break;
      }
      sleeper.sleep(POLL.compareTo(left) < 0 ? POLL : left);
    }
    // Seen by another waiting thread: never act before the moment it was seen (a no-op on a real
    // clock; on per-thread virtual time it keeps this thread's timeline consistent).
    Duration behind = Duration.between(clock.instant(), e.doneAt);
    if (behind.isPositive()) {
      sleeper.sleep(behind);
    }
    return true;
  }

  /** One listing of the node's pods per {@link #POLL}, shared by every waiting eviction. */
  private void poll(Instant now) {
    synchronized (pollLock) {
      if (lastPoll != null && Duration.between(lastPoll, now).compareTo(POLL) < 0) {
        return;
      }
      lastPoll = now;
    }
    List<PodInfo> pods;
    try {
      pods = cluster.podsOnNode(node);
    } catch (RuntimeException ex) {
      return; // the latest safe moment still bounds the wait
    }
    Instant seen = clock.instant();
    for (PodInfo p : pods) {
      Entry e = entries.get(p.uid());
      String done = p.annotations().get(DONE);
      if (e != null && done != null && e.doneAt == null) {
        e.reported = done;
        e.doneAt = seen;
      }
    }
  }

  /** Records when {@code pod}'s eviction was sent. */
  public void evicted(PodInfo pod, Instant at) {
    Entry e = entries.get(pod.uid());
    if (e != null) {
      e.evictedAt = at;
    }
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** Every opted-in pod's timeline, in pod-key order. */
  public List<CheckpointReport> reports() {
    var out = new ArrayList<CheckpointReport>();
    entries.values().stream()
        .sorted(java.util.Comparator.comparing(e -> e.pod.key()))
        .forEach(
            e ->
                out.add(
                    new CheckpointReport(
                        e.pod.key(),
                        e.wantsText,
                        e.toldAt,
                        e.doneAt == null ? CheckpointReport.NOT_REPORTED : e.doneAt.toString(),
                        e.reported,
                        e.latest,
                        e.evictedAt,
                        e.note)));
    return List.copyOf(out);
  }
}

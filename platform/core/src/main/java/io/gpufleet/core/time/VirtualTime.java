package io.gpufleet.core.time;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Virtual time: the one clock of the tests and the simulations. A clock and a sleeper that agree:
 * sleeping advances the clock at once by the duration slept, so a two-minute deadline runs in
 * milliseconds. Every sleep is recorded.
 *
 * <p>Concurrency is modelled the way the drain uses it (structured: a thread starts workers, then
 * waits for all of them). Each thread has its own timeline: a new thread starts at its creator's
 * time, its sleeps move only its own time, and when a thread reads the clock it first catches up
 * with the threads it started. So two pods retrying in parallel each see the full window, and the
 * thread that waited for them continues from the latest of their times. (Waiting on a lock or
 * semaphore costs no time here.) Single-threaded users simply {@link #set} or {@link #advance} it.
 */
public final class VirtualTime implements TimeSource {
  private final Instant start;
  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  /** One thread's time, and the timelines of the threads it started. */
  private static final class Lane {
    Instant now;
    final List<Lane> children = new ArrayList<>();

    Lane(Instant now) {
      this.now = now;
    }

    /** Catches up with every thread started from here (they are joined before we go on). */
    Instant join() {
      for (Lane child : children) {
        Instant t = child.join();
        if (t.isAfter(now)) {
          now = t;
        }
      }
      return now;
    }
  }

  private final InheritableThreadLocal<Lane> lane =
      new InheritableThreadLocal<>() {
        @Override
        protected Lane initialValue() {
          return new Lane(start);
        }

        @Override
        protected Lane childValue(Lane parent) {
          // runs in the creating thread, while the new thread is constructed
          synchronized (VirtualTime.this) {
            var child = new Lane(parent.join());
            parent.children.add(child);
            return child;
          }
        }
      };

  public VirtualTime(Instant start) {
    this.start = start;
    lane.get(); // the creating (test) thread is the root of every timeline
  }

  /** This thread's time. */
  @Override
  public synchronized Instant now() {
    return lane.get().join();
  }

  /** Moves this thread's time on (e.g. "the deadline has already passed"). */
  public synchronized void advance(Duration d) {
    Lane l = lane.get();
    l.now = l.join().plus(d);
  }

  /** Sets this thread's time (tests that jump to a wall-clock instant, forwards or back). */
  public synchronized void set(Instant instant) {
    Lane l = lane.get();
    l.join();
    l.children.clear(); // the threads it started are done; their times must not pull it forward
    l.now = instant;
  }

  /** Every sleep requested, by any thread, in order. */
  public List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }

  public Duration totalSlept() {
    return sleeps.stream().reduce(Duration.ZERO, Duration::plus);
  }

  @Override
  public Sleeper sleeper() {
    return d -> {
      if (d.isNegative()) {
        throw new AssertionError("asked to sleep a negative duration: " + d);
      }
      sleeps.add(d);
      advance(d);
    };
  }
}

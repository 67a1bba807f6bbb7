package io.gpufleet.schedule;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers the schedule ticks this container handled (schedule ARN + scheduled time). Scheduler
 * and Lambda deliver at least once; a repeat is answered DUPLICATE, a tick older than one already
 * handled for the same schedule SUPERSEDED. Another container may see a repeat too: that is safe,
 * because the reconcile is level-triggered and a second run writes nothing.
 */
public final class TickDeduper {
  public enum Verdict {
    NEW,
    DUPLICATE,
    SUPERSEDED
  }

  private final int capacity;
  private final Map<String, Boolean> seen;
  private final Map<String, Instant> latest = new LinkedHashMap<>();

  public TickDeduper(int capacity) {
    this.capacity = capacity;
    this.seen =
        new LinkedHashMap<>(16, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > TickDeduper.this.capacity;
          }
        };
  }

  /** Records the tick and says whether it is new. */
  public synchronized Verdict admit(ScheduleTick tick) {
    if (seen.containsKey(tick.key())) {
      return Verdict.DUPLICATE;
    }
    Instant newest = latest.get(tick.scheduleArn());
    if (newest != null && tick.scheduledTime().isBefore(newest)) {
      return Verdict.SUPERSEDED;
    }
    seen.put(tick.key(), Boolean.TRUE);
    latest.put(tick.scheduleArn(), tick.scheduledTime());
    return Verdict.NEW;
  }

  /** Forgets a tick whose run failed, so a retry of it runs again. */
  public synchronized void forget(ScheduleTick tick) {
    seen.remove(tick.key());
  }
}

package io.gpufleet.preflight;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Port: "has this delivery been handled?" Triggers are at-least-once, so a key (an alarm's name and
 * state-change time, a schedule's ARN and scheduled time) is claimed before acting; a second claim
 * of the same key answers false. A failed attempt releases its claim so Lambda's retry can act.
 */
public interface DedupeStorePort {

  /** True for the first claim of {@code key}, false when it was claimed before. */
  boolean claim(String key);

  /** Gives a claim back after a failed attempt. */
  void release(String key);

  /** In memory, bounded: enough within one process (CLI, tests, a warm Lambda container). */
  static DedupeStorePort inMemory(int capacity) {
    return new DedupeStorePort() {
      private final Map<String, Boolean> seen =
          new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
              return size() > capacity;
            }
          };

      @Override
      public synchronized boolean claim(String key) {
        return seen.putIfAbsent(key, Boolean.TRUE) == null;
      }

      @Override
      public synchronized void release(String key) {
        seen.remove(key);
      }
    };
  }

  /**
   * The memory of this container first (cheap repeat answers), then the shared store (other
   * containers, later invocations).
   */
  static DedupeStorePort layered(DedupeStorePort local, DedupeStorePort shared) {
    return new DedupeStorePort() {
      @Override
      public boolean claim(String key) {
        if (!local.claim(key)) {
          return false;
        }
        try {
          if (shared.claim(key)) {
            return true;
          }
          return false;
        } catch (RuntimeException e) {
          local.release(key);
          throw e;
        }
      }

      @Override
      public void release(String key) {
        try {
          shared.release(key);
        } finally {
          local.release(key);
        }
      }
    };
  }
}

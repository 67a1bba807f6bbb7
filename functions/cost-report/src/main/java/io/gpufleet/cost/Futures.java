package io.gpufleet.cost;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** Waits for a task of a run: its failure is rethrown as it was thrown, when unchecked. */
final class Futures {
  private Futures() {}

  static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }
}

package io.gpufleet.core.lambda;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A Lambda function's INIT on two threads: steps that depend on nothing the wiring builds (logging,
 * JSON mappers, read-only priming over fixed data) run on a second thread while the calling thread
 * builds the clients. Above about 1,769 MB a function has more than one vCPU, and a JVM's cold
 * start is mostly single-threaded class loading, so the second thread is nearly free time; below
 * it, the steps cost what they would cost on the first event anyway. A calling thread that is done
 * with the wiring first takes the steps not started yet, so neither thread idles while the other
 * has steps left.
 *
 * <p>Warm-up steps must do no network I/O and capture no credentials, tokens, randomness or wall
 * clock (they run before a SnapStart snapshot). Each is a head start only: a step that fails is
 * ignored here and fails again, and is reported, on the path that really needs it. {@link #around}
 * joins the thread before it returns, so nothing of the warm-up overlaps an invocation.
 */
public final class InitWarmup {
  private final Thread thread;
  private final Runnable remaining;

  private InitWarmup(Thread thread, Runnable remaining) {
    this.thread = thread;
    this.remaining = remaining;
  }

  /**
   * Starts {@code steps}, in order, on one daemon thread. A step is taken by one thread only: the
   * warm-up thread, or a caller of {@link #help()} that finished its own work first.
   */
  public static InitWarmup start(List<Runnable> steps) {
    var copy = List.copyOf(steps);
    var next = new AtomicInteger();
    Runnable run =
        () -> {
          for (int i; (i = next.getAndIncrement()) < copy.size(); ) {
            try {
              copy.get(i).run();
            } catch (RuntimeException | LinkageError ignored) {
              // a head start only: the main path meets (and reports) the same failure
            }
          }
        };
    Thread t = new Thread(run, "gpufleet-init-warmup");
    t.setDaemon(true);
    t.start();
    return new InitWarmup(t, run);
  }

  /**
   * Runs {@code main} on this thread with {@code steps} on a second one; when {@code main} is done
   * first, this thread takes the steps not started yet rather than wait idle for them. Returns when
   * all have ended.
   */
  public static <T> T around(List<Runnable> steps, Supplier<T> main) {
    InitWarmup warmup = start(steps);
    try {
      T value = main.get();
      warmup.help();
      return value;
    } finally {
      warmup.join();
    }
  }

  /** Runs, on this thread, the steps the warm-up thread has not started yet. */
  public void help() {
    remaining.run();
  }

  /**
   * Starts building {@code build} now on a daemon thread of its own and returns what waits for it:
   * for two parts of the wiring that do not depend on each other (an SDK client beside the
   * Kubernetes client), so INIT takes the longer of the two rather than their sum on a function
   * with more than one vCPU. Unlike a warm-up step, the value is used: {@code get()} returns it, or
   * throws what the build threw (a {@link RuntimeException} or {@link Error} as it was), every time
   * it is asked.
   */
  public static <T> Supplier<T> beside(String name, Supplier<T> build) {
    var task = new FutureTask<T>(build::get);
    Thread t = new Thread(task, "gpufleet-init-" + name);
    t.setDaemon(true);
    t.start();
    return () -> {
      boolean interrupted = false;
      try {
        while (true) {
          try {
            return task.get();
          } catch (InterruptedException e) {
            interrupted = true;
          } catch (ExecutionException e) {
            switch (e.getCause()) {
              case RuntimeException r -> throw r;
              case Error err -> throw err;
              default -> throw new IllegalStateException(e.getCause());
            }
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    };
  }

  /** Waits for the warm-up to end (keeping this thread's interrupt status). */
  public void join() {
    boolean interrupted = false;
    while (true) {
      try {
        thread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}

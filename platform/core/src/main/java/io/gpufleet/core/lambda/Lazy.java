package io.gpufleet.core.lambda;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A value built on first use, exactly once, however many threads ask at the same moment (the drain
 * evicts and looks up from many threads). Unlike {@code AtomicReference.updateAndGet}, whose
 * function may run again under contention, a losing thread waits instead of building a second
 * client that nobody closes. A build that throws is not remembered: the next call tries again.
 */
public final class Lazy<T> implements Supplier<T> {
  private final Supplier<? extends T> build;
  private volatile T value;

  private Lazy(Supplier<? extends T> build) {
    this.build = Objects.requireNonNull(build, "build");
  }

  public static <T> Lazy<T> of(Supplier<? extends T> build) {
    return new Lazy<>(build);
  }

  @Override
  public T get() {
    T v = value;
    if (v != null) {
      return v;
    }
    synchronized (this) {
      if (value == null) {
        value = Objects.requireNonNull(build.get(), "a Lazy value must not be null");
      }
      return value;
    }
  }
}

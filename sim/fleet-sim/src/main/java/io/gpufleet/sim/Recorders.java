package io.gpufleet.sim;

import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.DoubleAdder;

/** Recording fakes of the outcome ports, with optional fail-N-times behaviour. */
public final class Recorders {
  private Recorders() {}

  public record Published(String detailType, Object detail, List<String> resources) {}

  public record Notification(String subject, String message) {}

  public static final class RecordingPublisher implements EventPublisherPort {
    public final List<Published> published = new CopyOnWriteArrayList<>();
    private final AtomicInteger failuresLeft = new AtomicInteger();

    public void failNext(int times) {
      failuresLeft.set(times);
    }

    @Override
    public void publish(String detailType, Object detail, List<String> resources) {
      if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new IllegalStateException("simulated EventBridge failure");
      }
      published.add(new Published(detailType, detail, resources));
    }

    public void reset() {
      published.clear();
      failuresLeft.set(0);
    }
  }

  public static final class RecordingNotifier implements NotifierPort {
    public final List<Notification> sent = new CopyOnWriteArrayList<>();

    @Override
    public void notify(String subject, String message) {
      sent.add(new Notification(subject, message));
    }

    public void reset() {
      sent.clear();
    }
  }

  public static final class RecordingMetrics implements MetricsPort {
    private final Map<String, DoubleAdder> totals = new ConcurrentHashMap<>();
    public final AtomicInteger flushes = new AtomicInteger();

    @Override
    public void add(String name, double value, Unit unit) {
      totals.computeIfAbsent(name, k -> new DoubleAdder()).add(value);
    }

    @Override
    public void flush() {
      flushes.incrementAndGet();
    }

    public double total(String name) {
      var adder = totals.get(name);
      return adder == null ? 0 : adder.sum();
    }

    public Map<String, Double> snapshot() {
      var out = new java.util.TreeMap<String, Double>();
      totals.forEach((k, v) -> out.put(k, v.sum()));
      return out;
    }

    public void reset() {
      totals.clear();
      flushes.set(0);
    }
  }
}

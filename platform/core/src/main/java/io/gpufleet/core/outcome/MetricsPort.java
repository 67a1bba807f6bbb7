package io.gpufleet.core.outcome;

/** Where a function's counters and timings go (CloudWatch EMF in Lambda, memory in the CLI). */
public interface MetricsPort {
  enum Unit {
    COUNT,
    MILLISECONDS,
    PERCENT,
    NONE
  }

  void add(String name, double value, Unit unit);

  /**
   * A metric with its own dimensions (region, quota, ...). Sinks without dimension support record
   * it under the name followed by the dimension values ("HeadroomVcpu.us-east-1.P/Spot").
   */
  default void add(String name, double value, Unit unit, java.util.Map<String, String> dimensions) {
    var sb = new StringBuilder(name);
    new java.util.TreeMap<>(dimensions).values().forEach(v -> sb.append('.').append(v));
    add(sb.toString(), value, unit);
  }

  /** One value of a declared metric that has no dimensions besides Service. */
  default void add(Metric metric, double value) {
    if (!metric.dimensions().isEmpty()) {
      throw new IllegalArgumentException(
          metric.name() + " is declared with dimensions " + metric.dimensions());
    }
    add(metric.name(), value, metric.unit());
  }

  /** One value of a declared metric with the values of its declared dimensions (all of them). */
  default void add(Metric metric, double value, java.util.Map<String, String> dimensions) {
    add(metric.name(), value, metric.unit(), metric.check(dimensions));
  }

  /** Writes what was added since the last flush. */
  void flush();

  MetricsPort NONE =
      new MetricsPort() {
        @Override
        public void add(String name, double value, Unit unit) {}

        @Override
        public void flush() {}
      };
}

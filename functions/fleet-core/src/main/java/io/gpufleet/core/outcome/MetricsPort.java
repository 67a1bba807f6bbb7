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

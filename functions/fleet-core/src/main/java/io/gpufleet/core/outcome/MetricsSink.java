package io.gpufleet.core.outcome;

/** Where a function's counters and timings go (CloudWatch EMF in Lambda, memory in the CLI). */
public interface MetricsSink {
  enum Unit {
    COUNT,
    MILLISECONDS,
    PERCENT,
    NONE
  }

  void add(String name, double value, Unit unit);

  /** Writes what was added since the last flush. */
  void flush();

  MetricsSink NONE =
      new MetricsSink() {
        @Override
        public void add(String name, double value, Unit unit) {}

        @Override
        public void flush() {}
      };
}

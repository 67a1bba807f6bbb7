package io.gpufleet.core.outcome;

import java.util.ArrayList;
import java.util.List;

/** Metrics recorded in order as {@code name=value UNIT} lines, and each flush as {@code flush}. */
public final class RecordedMetrics implements MetricsPort {
  public final List<String> lines = new ArrayList<>();

  @Override
  public void add(String name, double value, Unit unit) {
    lines.add(name + "=" + value + " " + unit);
  }

  @Override
  public void flush() {
    lines.add("flush");
  }
}

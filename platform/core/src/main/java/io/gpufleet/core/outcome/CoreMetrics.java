package io.gpufleet.core.outcome;

import java.util.List;

/** The metrics every function publishes through the shared kernel. */
public final class CoreMetrics {
  private CoreMetrics() {}

  /** An outcome that could not be delivered to a sink ({@link Sinks#guarded}). */
  public static final Metric REPORT_FAILURES = Metric.count("ReportFailures");

  /** What the kernel publishes on behalf of every function. */
  public static final List<Metric> ALL = List.of(REPORT_FAILURES);
}

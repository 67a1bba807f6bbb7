package io.gpufleet.core.outcome;

import org.slf4j.Logger;

/** Delivery of an outcome to its sinks (event bus, notification, Kubernetes Event ...). */
public final class Sinks {
  private Sinks() {}

  /**
   * Runs one delivery. A failing sink is counted ({@code ReportFailures}) and logged, never thrown:
   * the work it reports on has already happened, and one broken sink must not hide the outcome from
   * the others or turn the invocation into a retry.
   */
  public static void guarded(MetricsPort metrics, Logger log, String sink, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      metrics.add(CoreMetrics.REPORT_FAILURES, 1);
      log.warn("could not report to {}: {}", sink, e.toString());
    }
  }
}

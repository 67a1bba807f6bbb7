package io.gpufleet.core.outcome;

import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.MetricsFactory;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * CloudWatch embedded metric format through Powertools (namespace from
 * POWERTOOLS_METRICS_NAMESPACE).
 */
public final class PowertoolsMetricsAdapter implements MetricsPort {
  private final Metrics metrics = MetricsFactory.getMetricsInstance();
  private final String namespace;
  private final String service;

  public PowertoolsMetricsAdapter() {
    metrics.setRaiseOnEmptyMetrics(false);
    // Powertools reads the variable itself; the default is ours
    namespace =
        io.gpufleet.core.config.Settings.fromEnvironment()
            .string("POWERTOOLS_METRICS_NAMESPACE", "GpuFleetOps");
    if (namespace.equals("GpuFleetOps")) {
      metrics.setNamespace(namespace);
    }
    service =
        io.gpufleet.core.config.Settings.fromEnvironment().string("POWERTOOLS_SERVICE_NAME", "");
  }

  /**
   * Serializes one EMF document without writing it anywhere: the classes of the end-of-invocation
   * flush (the EMF model and its JSON writer), loaded in INIT's warm-up or before a SnapStart
   * snapshot instead of after the first event's work. No output, no time kept.
   */
  public static void prime() {
    try {
      var context = new software.amazon.cloudwatchlogs.emf.model.MetricsContext();
      context.setNamespace("GpuFleetOpsPriming");
      context.putDimension(software.amazon.cloudwatchlogs.emf.model.DimensionSet.of("k", "v"));
      context.putMetric("Priming", 1, software.amazon.cloudwatchlogs.emf.model.Unit.COUNT);
      context.serialize();
    } catch (Exception e) {
      // a head start only: the flush itself meets and reports any real problem
    }
  }

  @Override
  public void add(String name, double value, Unit unit) {
    metrics.addMetric(name, value, unit(unit));
  }

  /**
   * Written at once as its own EMF document, so each dimension set stays separate. Powertools gives
   * such a document only the dimensions named here, not its default {@code Service}: it is added,
   * so every metric of a function carries its Service as the dashboard and alarms select it.
   */
  @Override
  public void add(String name, double value, Unit unit, java.util.Map<String, String> dimensions) {
    var all = new java.util.LinkedHashMap<String, String>();
    if (!service.isEmpty()) {
      all.put("Service", service);
    }
    all.putAll(dimensions);
    try {
      metrics.flushSingleMetric(name, value, unit(unit), namespace, DimensionSet.of(all));
    } catch (RuntimeException e) {
      System.err.println("gpufleet: could not write metric " + name + ": " + e);
    }
  }

  private static MetricUnit unit(Unit unit) {
    return switch (unit) {
      case COUNT -> MetricUnit.COUNT;
      case MILLISECONDS -> MetricUnit.MILLISECONDS;
      case PERCENT -> MetricUnit.PERCENT;
      case NONE -> MetricUnit.NONE;
    };
  }

  @Override
  public void flush() {
    try {
      metrics.flush();
    } catch (RuntimeException e) {
      // never let metrics mask the invocation's own result or error
      System.err.println("gpufleet: could not flush metrics: " + e);
    }
  }
}

package io.gpufleet.core.outcome;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One metric a function publishes, declared once: its EMF name, unit and the dimensions it carries
 * besides {@code Service} (which every record has: Powertools adds POWERTOOLS_SERVICE_NAME). The
 * code emits through these declarations and the stack's dashboard is generated from them.
 *
 * @param name the EMF metric name
 * @param unit its unit
 * @param dimensions the dimension names it is published with, besides Service (empty: Service only)
 * @param statistic the statistic a graph of it shows (Sum for counters, p50/p99 for timings, ...)
 */
public record Metric(
    String name, MetricsPort.Unit unit, List<String> dimensions, String statistic) {
  /** The dimension every metric of the namespace carries. */
  public static final String SERVICE = "Service";

  /** The CloudWatch namespace of every function's own metrics (POWERTOOLS_METRICS_NAMESPACE). */
  public static final String NAMESPACE = "GpuFleetOps";

  public Metric {
    if (!name.matches("[A-Za-z][A-Za-z0-9]*")) {
      throw new IllegalArgumentException("metric name must be alphanumeric: " + name);
    }
    dimensions = List.copyOf(dimensions);
    if (dimensions.contains(SERVICE)) {
      throw new IllegalArgumentException(name + ": Service is implied, do not declare it");
    }
  }

  /** A counter (graphed as Sum), published with the Service dimension only. */
  public static Metric count(String name) {
    return new Metric(name, MetricsPort.Unit.COUNT, List.of(), "Sum");
  }

  /** A counter with dimensions of its own. */
  public static Metric count(String name, String... dimensions) {
    return new Metric(name, MetricsPort.Unit.COUNT, List.of(dimensions), "Sum");
  }

  /** A duration in milliseconds (graphed as percentiles). */
  public static Metric millis(String name) {
    return new Metric(name, MetricsPort.Unit.MILLISECONDS, List.of(), "p50");
  }

  /** A gauge: the latest value of each run (graphed as Maximum). */
  public static Metric gauge(String name, MetricsPort.Unit unit, String... dimensions) {
    return new Metric(name, unit, List.of(dimensions), "Maximum");
  }

  /**
   * One counter per constant of an outcome enum, named {@code prefix} + the constant in Pascal case
   * ({@code Runs} + {@code INVALID_POLICY} = {@code RunsInvalidPolicy}).
   */
  public static <E extends Enum<E>> java.util.Map<E, Metric> countsPer(
      String prefix, Class<E> outcomes) {
    var map = new java.util.EnumMap<E, Metric>(outcomes);
    for (E e : outcomes.getEnumConstants()) {
      map.put(e, count(prefix + OutcomeReporter.pascal(e.name())));
    }
    return java.util.Collections.unmodifiableMap(map);
  }

  /** The dimension values of one record, checked against the declaration. */
  Map<String, String> check(Map<String, String> values) {
    if (!values.keySet().equals(Set.copyOf(dimensions))) {
      throw new IllegalArgumentException(
          name + " is declared with dimensions " + dimensions + ", given " + values.keySet());
    }
    return values;
  }
}

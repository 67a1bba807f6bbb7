package io.gpufleet.preflight;

import io.gpufleet.core.catalog.QuotaBucket;
import java.util.Map;

/** Port: current vCPU usage per quota (CloudWatch AWS/Usage in production). */
public interface UsagePort {

  /**
   * Maximum of AWS/Usage ResourceCount over the last hour for each key, queried by its usage {@code
   * Class} dimension (key → class). Keys without data points are absent.
   */
  Map<QuotaBucket.Key, Double> maxUsageLastHour(
      String region, Map<QuotaBucket.Key, String> usageClasses);

  /**
   * The current state ({@code OK}, {@code ALARM}, {@code INSUFFICIENT_DATA}) of the metric alarm
   * named {@code alarmName} in {@code region} (CloudWatch DescribeAlarms), or empty when no such
   * alarm exists: an alarm event is acted on only as the alarm itself stands now.
   */
  java.util.Optional<String> alarmState(String region, String alarmName);
}

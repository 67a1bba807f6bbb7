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
}

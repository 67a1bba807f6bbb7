package io.gpufleet.core.aws;

import java.util.Map;

/**
 * Sees every {@link AwsQuery} request before it is sent (found with {@link java.util.ServiceLoader}
 * once per JVM). The testkit registers one that checks each request against the service's model and
 * refuses, by throwing, one that the service would refuse; a deployment jar registers none.
 */
public interface AwsQueryInspector {
  /**
   * @param service the service called
   * @param params the form parameters in wire order, {@code Action} and {@code Version} included
   */
  void inspect(AwsQuery.Service service, Map<String, String> params);
}

package io.gpufleet.core.aws;

import java.util.Map;

/**
 * Sees every {@link Ec2Query} request before it is sent (found with {@link java.util.ServiceLoader}
 * once per JVM). The testkit registers one that checks each request against the EC2 service model
 * and refuses, by throwing, one that EC2 would refuse; a deployment jar registers none.
 */
public interface Ec2QueryInspector {
  /**
   * @param params the form parameters in wire order, {@code Action} and {@code Version} included
   */
  void inspect(Map<String, String> params);
}

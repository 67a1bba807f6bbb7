package io.gpufleet.core.aws;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Sees every {@link AwsJson} request before it is sent (found with {@link java.util.ServiceLoader}
 * once per JVM). The testkit registers one that checks each request against the service's model and
 * refuses, by throwing, one that the service would refuse; a deployment jar registers none.
 */
public interface AwsJsonInspector {
  /**
   * @param service the service called
   * @param operation the operation ({@code GetProducts})
   * @param input the request's JSON object as it goes on the wire
   */
  void inspect(AwsJson.Service service, String operation, JsonNode input);
}

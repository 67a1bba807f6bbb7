package io.gpufleet.core.aws;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Sees every {@link AwsRestJson} request before it is sent (found with {@link
 * java.util.ServiceLoader} once per JVM). The testkit registers one that holds each request to the
 * service's model (the operation's HTTP method and request URI, its input members) and refuses, by
 * throwing, one the service would refuse; a deployment jar registers none.
 */
public interface AwsRestJsonInspector {
  /**
   * @param service the service called
   * @param operation the operation ({@code DescribeCluster})
   * @param method the HTTP method the client sends
   * @param requestUri the request URI template the client fills ({@code /clusters/{name}})
   * @param input the members the client puts in the URI, by their model names
   */
  void inspect(
      AwsRestJson.Service service,
      String operation,
      String method,
      String requestUri,
      JsonNode input);
}

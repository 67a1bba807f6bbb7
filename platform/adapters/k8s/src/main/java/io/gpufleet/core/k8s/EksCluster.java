package io.gpufleet.core.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.aws.AwsRestJson;
import java.util.Optional;

/**
 * What EKS DescribeCluster says about a cluster that the Kubernetes client needs: its API server
 * endpoint, its status and its certificate authority (base64 PEM). One rest-json GET ({@code GET
 * /clusters/{name}}) on {@link AwsRestJson}, instead of the SDK's EKS client and its model.
 */
public record EksCluster(String name, String endpoint, String status, Optional<String> caData) {
  public static final String OPERATION = "DescribeCluster";
  public static final String REQUEST_URI = "/clusters/{name}";

  /**
   * @throws AwsCallException as EKS answers (ResourceNotFoundException for an unknown cluster)
   */
  public static EksCluster describe(AwsRestJson eks, String name) {
    JsonNode cluster =
        eks.get(OPERATION, REQUEST_URI, AwsJson.input().put("name", name)).path("cluster");
    return new EksCluster(
        name,
        text(cluster.path("endpoint")),
        text(cluster.path("status")),
        Optional.ofNullable(text(cluster.path("certificateAuthority").path("data"))));
  }

  private static String text(JsonNode v) {
    return v.isTextual() && !v.asText().isBlank() ? v.asText() : null;
  }
}

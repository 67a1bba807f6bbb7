package io.gpufleet.sim.aws;

import io.gpufleet.core.json.Json;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * EKS DescribeCluster on the {@link AwsStubServer} ({@code GET /clusters/{name}}, rest-json): an
 * ACTIVE cluster whose API server is wherever the simulation runs it (moto's EKS answers with an
 * endpoint of its own), with its certificate authority when it has one. Its answer has the members
 * of botocore's {@code Cluster} shape the functions read (name, endpoint, status,
 * certificateAuthority.data).
 */
public final class SimEks {
  private SimEks() {}

  /** The stub's operation key of DescribeCluster for {@code name}. */
  public static String describeCluster(String name) {
    return "GET /clusters/" + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** Serves DescribeCluster of {@code name}: ACTIVE at {@code endpoint}. */
  public static void serve(
      AwsStubServer stub, String name, String endpoint, Optional<String> caData) {
    var cluster = new LinkedHashMap<String, Object>();
    cluster.put("name", name);
    cluster.put("arn", "arn:aws:eks:us-east-1:000000000000:cluster/" + name);
    cluster.put("endpoint", endpoint);
    cluster.put("status", "ACTIVE");
    caData.ifPresent(ca -> cluster.put("certificateAuthority", Map.of("data", ca)));
    String body = Json.write(Map.of("cluster", cluster));
    stub.on(describeCluster(name), call -> new AwsStubServer.Reply(200, "application/json", body));
  }
}

package io.gpufleet.sim.aws;

import io.fabric8.kubernetes.api.model.Node;
import io.gpufleet.sim.SimCluster;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * EC2 DescribeInstances by instance id for the simulated clusters' nodes, as EC2 answers for an EKS
 * node: {@code privateDnsName} is the node's name (the name kubelet registers on EKS-optimized
 * AMIs, Bottlerocket and Karpenter nodes), and the tags name its cluster ({@code eks:cluster-name}
 * and {@code kubernetes.io/cluster/<name>} = owned). An id no cluster has gets {@code
 * InvalidInstanceID.NotFound}, a malformed one {@code InvalidInstanceID.Malformed}, as EC2 answers.
 */
public final class SimEc2 {
  private SimEc2() {}

  /**
   * Registers DescribeInstances on {@code stub}, answering for the instances of {@code clusters}'
   * nodes (name → cluster) as they are now: EC2's instances outlive a deleted node object.
   */
  public static AwsStubServer serve(AwsStubServer stub, Map<String, SimCluster> clusters) {
    var nodes = new java.util.LinkedHashMap<String, List<Node>>();
    clusters.forEach((cluster, sim) -> nodes.put(cluster, sim.nodes()));
    return serveNodes(stub, nodes);
  }

  /**
   * The same for nodes read from any API server (a real one in the real API server tier): cluster
   * name → its nodes; each node whose providerID names an instance is that instance.
   */
  public static AwsStubServer serveNodes(AwsStubServer stub, Map<String, List<Node>> clusters) {
    var byId = new HashMap<String, String[]>();
    clusters.forEach(
        (cluster, nodes) -> {
          for (Node n : nodes) {
            String provider = n.getSpec() == null ? null : n.getSpec().getProviderID();
            if (provider != null && provider.contains("/i-")) {
              byId.put(
                  provider.substring(provider.lastIndexOf('/') + 1),
                  new String[] {n.getMetadata().getName(), cluster});
            }
          }
        });
    var index = Map.copyOf(byId);
    return stub.on("DescribeInstances", call -> describe(call, index));
  }

  /** What EC2 accepts as an instance id: i- and 8 or 17 hex digits (older and newer ids). */
  static final java.util.regex.Pattern INSTANCE_ID =
      java.util.regex.Pattern.compile("i-(?:[0-9a-f]{8}|[0-9a-f]{17})");

  /**
   * DescribeInstances by {@code InstanceId.N} as EC2 answers it: every id asked for in one
   * reservation each, in the order asked; none asked for, every instance. A malformed id fails the
   * whole call with {@code InvalidInstanceID.Malformed}, then any unknown one with {@code
   * InvalidInstanceID.NotFound} naming the missing ids (EC2 returns none of the found ones then).
   * Filters and pagination ({@code MaxResults}, {@code NextToken}) are not simulated: refused with
   * {@code InvalidParameterCombination} rather than ignored.
   */
  static AwsStubServer.Reply describe(AwsStubServer.Call call, Map<String, String[]> byId) {
    if (call.params().keySet().stream()
        .anyMatch(
            k -> k.startsWith("Filter.") || k.equals("MaxResults") || k.equals("NextToken"))) {
      return error(
          400,
          "InvalidParameterCombination",
          "the simulator answers by InstanceId only (no filters, no pagination)");
    }
    var ids = AwsStubServer.listParam(call, "InstanceId");
    for (String id : ids) {
      if (!INSTANCE_ID.matcher(id).matches()) {
        return error(400, "InvalidInstanceID.Malformed", "Invalid id: \"" + xml(id) + "\"");
      }
    }
    var missing = ids.stream().filter(id -> !byId.containsKey(id)).distinct().toList();
    if (!missing.isEmpty()) {
      return error(
          400,
          "InvalidInstanceID.NotFound",
          missing.size() == 1
              ? "The instance ID '" + missing.get(0) + "' does not exist"
              : "The instance IDs '" + String.join(", ", missing) + "' do not exist");
    }
    var answer = new StringBuilder();
    for (String id : ids.isEmpty() ? new java.util.TreeSet<>(byId.keySet()) : ids) {
      String[] known = byId.get(id);
      answer.append(reservation(id, known[0], known[1]));
    }
    return AwsStubServer.Reply.xml(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DescribeInstancesResponse"
            + " xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\"><requestId>sim</requestId>"
            + "<reservationSet>"
            + answer
            + "</reservationSet></DescribeInstancesResponse>");
  }

  private static String xml(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  /** One reservation of one running instance: its node's name as private DNS, its cluster tags. */
  static String reservation(String id, String dnsName, String cluster) {
    return "<item><reservationId>r-0sim"
        + id.substring(2)
        + "</reservationId><instancesSet><item><instanceId>"
        + id
        + "</instanceId><instanceState><code>16</code><name>running</name></instanceState>"
        + "<privateDnsName>"
        + dnsName
        + "</privateDnsName><tagSet><item><key>eks:cluster-name</key><value>"
        + cluster
        + "</value></item><item><key>kubernetes.io/cluster/"
        + cluster
        + "</key><value>owned</value></item></tagSet></item></instancesSet></item>";
  }

  private static AwsStubServer.Reply error(int status, String code, String message) {
    return new AwsStubServer.Reply(
        status,
        "text/xml;charset=UTF-8",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Errors><Error><Code>"
            + code
            + "</Code><Message>"
            + message
            + "</Message></Error></Errors><RequestID>sim</RequestID></Response>");
  }
}

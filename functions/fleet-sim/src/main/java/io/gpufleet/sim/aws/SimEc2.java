package io.gpufleet.sim.aws;

import io.fabric8.kubernetes.api.model.Node;
import io.gpufleet.sim.SimCluster;
import java.util.HashMap;
import java.util.Map;

/**
 * EC2 DescribeInstances by instance id for the simulated clusters' nodes, as EC2 answers for an EKS
 * node: {@code privateDnsName} is the node's name (the name kubelet registers on EKS-optimized
 * AMIs, Bottlerocket and Karpenter nodes), and the tags name its cluster ({@code eks:cluster-name}
 * and {@code kubernetes.io/cluster/<name>} = owned). An id no cluster has gets {@code
 * InvalidInstanceID.NotFound}, as EC2 answers for an unknown instance.
 */
public final class SimEc2 {
  private SimEc2() {}

  /**
   * Registers DescribeInstances on {@code stub}, answering for the instances of {@code clusters}'
   * nodes (name → cluster) as they are now: EC2's instances outlive a deleted node object.
   */
  public static AwsStubServer serve(AwsStubServer stub, Map<String, SimCluster> clusters) {
    var byId = new HashMap<String, String[]>();
    clusters.forEach(
        (cluster, sim) -> {
          for (Node n : sim.nodes()) {
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

  static AwsStubServer.Reply describe(AwsStubServer.Call call, Map<String, String[]> byId) {
    if (call.param("InstanceId.2").isPresent() || call.param("Filter.1.Name").isPresent()) {
      return error(400, "InvalidParameterCombination", "the simulator answers one InstanceId");
    }
    String id = call.param("InstanceId.1").orElse("");
    String[] known = byId.get(id);
    return known == null
        ? error(400, "InvalidInstanceID.NotFound", "The instance ID '" + id + "' does not exist")
        : AwsStubServer.Reply.xml(instance(id, known[0], known[1]));
  }

  static String instance(String id, String dnsName, String cluster) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DescribeInstancesResponse"
        + " xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\"><requestId>sim</requestId>"
        + "<reservationSet><item><reservationId>r-0sim</reservationId><instancesSet><item>"
        + "<instanceId>"
        + id
        + "</instanceId><instanceState><code>16</code><name>running</name></instanceState>"
        + "<privateDnsName>"
        + dnsName
        + "</privateDnsName><tagSet><item><key>eks:cluster-name</key><value>"
        + cluster
        + "</value></item><item><key>kubernetes.io/cluster/"
        + cluster
        + "</key><value>owned</value></item></tagSet></item></instancesSet></item>"
        + "</reservationSet></DescribeInstancesResponse>";
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

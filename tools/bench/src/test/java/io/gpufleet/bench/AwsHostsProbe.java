package io.gpufleet.bench;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.aws.ServiceWire;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The child of {@link AwsHostsTest}: a function's own AWS client, built from the environment as in
 * Lambda (no endpoint override), publishes one event, then says where names resolve.
 */
public final class AwsHostsProbe {
  private AwsHostsProbe() {}

  public static void main(String[] args) throws Exception {
    var aws = AwsClients.fromEnvironment();
    var wire = ServiceWire.from(aws, AwsJson.EVENTBRIDGE);
    var input = AwsJson.input();
    input
        .putArray("Entries")
        .addObject()
        .put("EventBusName", "default")
        .put("Source", "gpufleet.probe")
        .put("DetailType", "Probe")
        .put("Detail", "{}");
    var answer = new AwsJson(AwsJson.EVENTBRIDGE, wire).call("PutEvents", input);
    System.out.println("endpoint " + wire.endpoint());
    System.out.println("failed " + answer.path("FailedEntryCount").asInt(-1));
    System.out.println(
        "sts " + InetAddress.getByName("sts.eu-west-1.amazonaws.com").getHostAddress());
    try {
      System.out.println("elsewhere " + InetAddress.getByName("example.com").getHostAddress());
    } catch (UnknownHostException e) {
      System.out.println("elsewhere unresolved");
    }
  }
}

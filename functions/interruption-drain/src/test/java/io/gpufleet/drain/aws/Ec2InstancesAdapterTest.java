package io.gpufleet.drain.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.drain.CapacityReservationPort.ReservationLookupException;
import io.gpufleet.sim.aws.AwsStubServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * The drain's one EC2 call (DescribeInstances by capacity-reservation-id) on the wire: signed for
 * ec2 in the client's region, every form field resolved through botocore's EC2 model (EC2 protocol
 * names: {@code Filter.N.Name}, {@code Filter.N.Value.M}, enum and bounds), pages followed, errors
 * surfaced as retryable lookups. moto ignores the capacity-reservation-id filter, so a stub serving
 * the documented response shape plays EC2 here.
 */
class Ec2InstancesAdapterTest {
  static AwsStubServer stub;
  static JsonNode model;
  Ec2InstancesAdapter ec2;
  final Map<String, List<String>> byReservation = new LinkedHashMap<>();
  int pageSize = 1000;

  @BeforeAll
  static void start() throws IOException {
    stub = AwsStubServer.start();
    Path file = QueryModelCheck.dataDir().resolve("ec2/2016-11-15/service-2.json.gz");
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      model = Json.MAPPER.readTree(in);
    }
  }

  @AfterAll
  static void stop() {
    stub.close();
  }

  @BeforeEach
  void seed() {
    stub.reset();
    stub.on("DescribeInstances", this::describe);
    ec2 =
        new Ec2InstancesAdapter(
            stub.endpoint(),
            Region.US_WEST_2,
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSTUB", "secret")),
            UrlConnectionHttpClient.create());
  }

  @AfterEach
  void everyRequestFitsTheEc2Model() {
    for (var call : stub.calls()) {
      assertThat(violations(call.params())).as("%s", call.params()).isEmpty();
      assertThat(call.region()).isEqualTo("us-west-2");
      assertThat(call.headers().get("authorization"))
          .startsWith("AWS4-HMAC-SHA256 Credential=AKIDSTUB/")
          .contains("/us-west-2/ec2/aws4_request");
    }
  }

  /** EC2's answer: reservationSet/item/instancesSet/item, paged by nextToken. */
  AwsStubServer.Reply describe(AwsStubServer.Call call) {
    var one = call.param("InstanceId.1");
    if (one.isPresent()) {
      return one.get().equals("i-0b00000000000009")
          ? AwsStubServer.Reply.xml(oneInstance(one.get()))
          : new AwsStubServer.Reply(
              400,
              "text/xml;charset=UTF-8",
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Errors><Error><Code>"
                  + "InvalidInstanceID.NotFound</Code><Message>The instance ID '"
                  + one.get()
                  + "' does not exist</Message></Error></Errors><RequestID>r</RequestID></Response>");
    }
    String cr = call.param("Filter.1.Value.1").orElseThrow();
    var ids = byReservation.getOrDefault(cr, List.of());
    int from = Integer.parseInt(call.param("NextToken").orElse("0"));
    int to = Math.min(ids.size(), from + pageSize);
    var xml = new StringBuilder();
    xml.append(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DescribeInstancesResponse"
            + " xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\"><requestId>r</requestId>"
            + "<reservationSet>");
    for (String id : ids.subList(from, to)) {
      xml.append("<item><reservationId>r-1</reservationId><ownerId>123456789012</ownerId>")
          .append("<groupSet/><instancesSet><item><instanceId>")
          .append(id)
          .append("</instanceId><instanceType>p5.48xlarge</instanceType>")
          .append("<instanceState><code>16</code><name>running</name></instanceState>")
          .append("<capacityReservationId>")
          .append(cr)
          .append("</capacityReservationId><networkInterfaceSet><item><attachment>")
          .append("<attachmentId>eni-attach-1</attachmentId></attachment><ownerId>1</ownerId>")
          .append("</item></networkInterfaceSet><tagSet><item><key>eks:cluster-name</key>")
          .append("<value>ml</value></item></tagSet></item></instancesSet></item>");
    }
    xml.append("</reservationSet>");
    if (to < ids.size()) {
      xml.append("<nextToken>").append(to).append("</nextToken>");
    }
    xml.append("</DescribeInstancesResponse>");
    return AwsStubServer.Reply.xml(xml.toString());
  }

  /** One instance as EC2 documents it: privateDnsName, and tags as tagSet/item key/value. */
  static String oneInstance(String id) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DescribeInstancesResponse"
        + " xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\"><requestId>r</requestId>"
        + "<reservationSet><item><reservationId>r-1</reservationId><instancesSet><item>"
        + "<instanceId>"
        + id
        + "</instanceId><privateDnsName>ip-10-0-1-23.us-west-2.compute.internal</privateDnsName>"
        + "<networkInterfaceSet><item><privateDnsName>not-this.internal</privateDnsName>"
        + "</item></networkInterfaceSet><tagSet>"
        + "<item><key>Name</key><value>gpu</value></item>"
        + "<item><key>kubernetes.io/cluster/research</key><value>owned</value></item>"
        + "<item><key>eks:eks-cluster-name</key><value>research</value></item>"
        + "<item><key>karpenter.sh/nodepool</key><value>gpu</value></item>"
        + "</tagSet></item></instancesSet></item></reservationSet></DescribeInstancesResponse>";
  }

  @Test
  void shouldDescribeOneInstanceAsItsNodeNameAndTheClustersItsTagsName() {
    var instance = ec2.describe("i-0b00000000000009");

    assertThat(instance)
        .contains(
            new io.gpufleet.drain.InstanceLookupPort.Instance(
                "ip-10-0-1-23.us-west-2.compute.internal", java.util.Set.of("research")));
    assertThat(stub.calls("DescribeInstances")).hasSize(1);
    assertThat(stub.calls("DescribeInstances").get(0).params())
        .containsEntry("InstanceId.1", "i-0b00000000000009")
        .doesNotContainKey("Filter.1.Name");
  }

  @Test
  void shouldSurfaceAnUnknownInstanceAsALookupFailureAndAskNothingForANonInstanceId() {
    assertThatThrownBy(() -> ec2.describe("i-0b00000000000001"))
        .isInstanceOf(ReservationLookupException.class)
        .hasMessageContaining("InvalidInstanceID.NotFound");
    assertThat(ec2.describe("not-an-instance")).isEmpty();
    assertThat(stub.calls("DescribeInstances")).hasSize(1);
  }

  @Test
  void shouldListTheLiveInstancesOfTheCapacityReservationAcrossPages() {
    byReservation.put(
        "cr-0123456789abcdef0",
        List.of("i-0b00000000000001", "i-0b00000000000002", "i-0b00000000000003"));
    pageSize = 2;

    var ids = ec2.runningInstances("cr-0123456789abcdef0");

    assertThat(ids)
        .containsExactly("i-0b00000000000001", "i-0b00000000000002", "i-0b00000000000003");
    assertThat(stub.calls("DescribeInstances")).hasSize(2);
    var first = stub.calls("DescribeInstances").get(0);
    assertThat(first.params())
        .containsEntry("Filter.1.Name", "capacity-reservation-id")
        .containsEntry("Filter.1.Value.1", "cr-0123456789abcdef0")
        .containsEntry("Filter.2.Name", "instance-state-name")
        .containsEntry("Filter.2.Value.1", "pending")
        .containsEntry("Filter.2.Value.4", "shutting-down")
        .doesNotContainKey("NextToken");
    assertThat(stub.calls("DescribeInstances").get(1).params()).containsEntry("NextToken", "2");
  }

  @Test
  void shouldAnswerNoInstancesForAnEmptyReservation() {
    assertThat(ec2.runningInstances("cr-0aaaaaaaaaaaaaaaa")).isEmpty();
  }

  @Test
  void shouldSurfaceThrottlingAsARetryableLookupFailureNamingTheCode() {
    stub.failNext("DescribeInstances", 1, AwsStubServer.AwsFault.EC2_THROTTLED);

    assertThatThrownBy(() -> ec2.runningInstances("cr-0123456789abcdef0"))
        .isInstanceOf(ReservationLookupException.class)
        .hasMessageContaining("HTTP 503")
        .hasMessageContaining("RequestLimitExceeded");
  }

  @Test
  void shouldRefuseSomethingThatIsNotAReservationIdBeforeAnyRequest() {
    assertThatThrownBy(() -> ec2.runningInstances("cr-x&Action=TerminateInstances"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(stub.calls()).isEmpty();
  }

  @Test
  void shouldUseTheEc2EndpointOverrideTheSdkWouldUse() {
    assertThat(
            Ec2InstancesAdapter.endpointFor(
                Region.US_EAST_1, Map.of("AWS_ENDPOINT_URL", "http://localhost:5000")))
        .hasToString("http://localhost:5000");
    assertThat(
            Ec2InstancesAdapter.endpointFor(
                Region.US_EAST_1,
                Map.of(
                    "AWS_ENDPOINT_URL", "http://a:1", "AWS_ENDPOINT_URL_EC2", "http://ec2-only:2")))
        .hasToString("http://ec2-only:2");
    assertThat(Ec2InstancesAdapter.endpointFor(Region.of("cn-north-1"), Map.of()))
        .hasToString("https://ec2.cn-north-1.amazonaws.com.cn/");
  }

  /** Resolves each EC2-protocol form key through the model; names every mismatch. */
  static List<String> violations(Map<String, String> params) {
    var out = new ArrayList<String>();
    JsonNode op = model.path("operations").path(params.get("Action"));
    if (op.isMissingNode()) {
      return List.of("operation " + params.get("Action") + " is not in the model");
    }
    if (!model.path("metadata").path("apiVersion").asText().equals(params.get("Version"))) {
      out.add("Version is not " + model.path("metadata").path("apiVersion").asText());
    }
    assertThat(model.path("metadata").path("protocol").asText()).isEqualTo("ec2");
    JsonNode input = shape(op.path("input").path("shape").asText());
    for (var p : params.entrySet()) {
      if (p.getKey().equals("Action") || p.getKey().equals("Version")) {
        continue;
      }
      String[] parts = p.getKey().split("\\.");
      JsonNode current = input;
      String problem = null;
      for (int i = 0; i < parts.length && problem == null; i++) {
        String part = parts[i];
        switch (current.path("type").asText()) {
          case "structure" -> {
            JsonNode member = null;
            for (var it = current.path("members").fields(); it.hasNext(); ) {
              var m = it.next();
              String wire = m.getValue().path("locationName").asText(m.getKey());
              // EC2 protocol: the locationName with its first letter upper-cased
              if ((Character.toUpperCase(wire.charAt(0)) + wire.substring(1)).equals(part)) {
                member = m.getValue();
              }
            }
            if (member == null) {
              problem = "unknown member " + part;
            } else {
              current = shape(member.path("shape").asText());
            }
          }
          case "list" -> {
            if (!part.matches("[1-9][0-9]*")) {
              problem = "list index " + part + " is not 1-based";
            } else {
              current = shape(current.path("member").path("shape").asText());
            }
          }
          default -> problem = "scalar has no part " + part;
        }
      }
      if (problem == null && current.path("type").asText().equals("structure")) {
        problem = "a structure given as a scalar";
      }
      if (problem == null) {
        String type = current.path("type").asText();
        if (type.equals("integer") && !p.getValue().matches("-?[0-9]+")) {
          problem = "not an integer";
        }
        if (current.has("enum")) {
          boolean known = false;
          for (JsonNode e : current.path("enum")) {
            known |= e.asText().equals(p.getValue());
          }
          if (!known) {
            problem = "not one of " + current.path("enum");
          }
        }
      }
      if (problem != null) {
        out.add(p.getKey() + "=" + p.getValue() + ": " + problem);
      }
    }
    return out;
  }

  static JsonNode shape(String name) {
    return model.path("shapes").path(name);
  }
}

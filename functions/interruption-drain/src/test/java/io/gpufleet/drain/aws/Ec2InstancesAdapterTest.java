package io.gpufleet.drain.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.aws.AwsRetry;
import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.drain.CapacityReservationPort.ReservationLookupException;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * The drain's one EC2 call (DescribeInstances by capacity-reservation-id) on the wire through the
 * shared EC2 Query client: signed for ec2 in the client's region, every request held to botocore's
 * EC2 model by the testkit's inspector (a violation fails the test), pages followed, throttling
 * retried and then surfaced as a retryable lookup. moto ignores the capacity-reservation-id filter,
 * so a stub serving the documented response shape plays EC2 here.
 */
class Ec2InstancesAdapterTest {
  static AwsStubServer stub;
  Ec2InstancesAdapter ec2;
  final Map<String, List<String>> byReservation = new LinkedHashMap<>();
  final List<Duration> sleeps = new CopyOnWriteArrayList<>();
  int pageSize = 1000;
  long validatedBefore;

  @BeforeAll
  static void start() {
    stub = AwsStubServer.start();
  }

  @AfterAll
  static void stop() {
    stub.close();
  }

  @BeforeEach
  void seed() {
    stub.reset();
    stub.on("DescribeInstances", this::describe);
    validatedBefore = ContractViolations.validatedRequests();
    ec2 =
        new Ec2InstancesAdapter(
            new Ec2Query(
                stub.endpoint(),
                Region.US_WEST_2,
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSTUB", "secret")),
                UrlConnectionHttpClient.create(),
                AwsRetry.standard().withSleeper(sleeps::add)));
  }

  @AfterEach
  void everyRequestWasCheckedAgainstTheEc2ModelAndSigned() {
    // the testkit's inspector saw each request (and would have failed the test on a violation)
    assertThat(ContractViolations.validatedRequests() - validatedBefore)
        .isGreaterThanOrEqualTo(stub.calls().size());
    for (var call : stub.calls()) {
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
  void shouldRetryThrottlingWithBackoff() {
    byReservation.put("cr-0123456789abcdef0", List.of("i-0b00000000000001"));
    stub.failNext("DescribeInstances", 1, AwsStubServer.AwsFault.EC2_THROTTLED);

    assertThat(ec2.runningInstances("cr-0123456789abcdef0")).containsExactly("i-0b00000000000001");
    assertThat(stub.calls("DescribeInstances")).hasSize(2);
    assertThat(sleeps)
        .singleElement()
        .satisfies(d -> assertThat(d).isBetween(Duration.ZERO, Duration.ofMillis(100)));
  }

  @Test
  void shouldSurfaceThrottlingPastTheRetriesAsARetryableLookupFailureNamingTheCode() {
    stub.failNext("DescribeInstances", 3, AwsStubServer.AwsFault.EC2_THROTTLED);

    assertThatThrownBy(() -> ec2.runningInstances("cr-0123456789abcdef0"))
        .isInstanceOf(ReservationLookupException.class)
        .hasMessageContaining("HTTP 503")
        .hasMessageContaining("RequestLimitExceeded");
    assertThat(stub.calls("DescribeInstances")).hasSize(3);
    assertThat(sleeps).hasSize(2);
  }

  @Test
  void shouldRefuseSomethingThatIsNotAReservationIdBeforeAnyRequest() {
    assertThatThrownBy(() -> ec2.runningInstances("cr-x&Action=TerminateInstances"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(stub.calls()).isEmpty();
  }
}

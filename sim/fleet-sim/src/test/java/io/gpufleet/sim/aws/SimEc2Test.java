package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceStateName;
import software.amazon.awssdk.services.ec2.model.Reservation;
import software.amazon.awssdk.services.ec2.model.Tag;

/**
 * The simulated EC2's DescribeInstances, read by the real EC2 SDK client (its requests checked
 * against botocore's EC2 model by the tests' interceptor, its answers parsed by the SDK's own
 * unmarshaller): per instance id, the cluster tags of the simulated cluster holding its node, and
 * EC2's error codes for unknown and malformed ids.
 */
class SimEc2Test {
  static final String PROD_A = "i-0aaaaaaaaaaaaaaa1";
  static final String PROD_B = "i-0aaaaaaaaaaaaaaa2";
  static final String STAGING_A = "i-0bbbbbbbbbbbbbbb1";
  static final String UNKNOWN = "i-0ccccccccccccccc9";

  static SimCluster prod;
  static SimCluster staging;
  static AwsStubServer stub;
  static Ec2Client ec2;

  @BeforeAll
  static void start() {
    var time = SimTime.realTime();
    prod = SimCluster.start(time);
    staging = SimCluster.start(time);
    prod.create(
        SimCluster.gpuNode("prod-a", PROD_A, "us-east-1a", "p5.48xlarge", "spot", "gpu", null, 8));
    prod.create(
        SimCluster.gpuNode("prod-b", PROD_B, "us-east-1b", "p5.48xlarge", "spot", "gpu", null, 8));
    staging.create(
        SimCluster.gpuNode(
            "staging-a", STAGING_A, "us-east-1a", "g6e.12xlarge", "on-demand", null, "ng", 4));
    var clusters = new LinkedHashMap<String, SimCluster>();
    clusters.put("prod", prod);
    clusters.put("staging", staging);
    stub = SimEc2.serve(AwsStubServer.start(), clusters);
    ec2 =
        new AwsClients(
                Region.US_EAST_1,
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSTUB", "secret")),
                Optional.of(stub.endpoint()))
            .build(Ec2Client.builder());
  }

  @AfterAll
  static void stop() {
    ec2.close();
    stub.close();
    prod.close();
    staging.close();
  }

  private static List<Instance> instances(List<Reservation> reservations) {
    return reservations.stream().flatMap(r -> r.instances().stream()).toList();
  }

  private static Map<String, String> tags(Instance i) {
    var m = new LinkedHashMap<String, String>();
    for (Tag t : i.tags()) {
      m.put(t.key(), t.value());
    }
    return m;
  }

  @Test
  void shouldAnswerAnInstanceWithItsNodesNameAndTheTagsOfTheClusterHoldingIt() {
    var prodA = instances(ec2.describeInstances(r -> r.instanceIds(PROD_A)).reservations());
    var stagingA = instances(ec2.describeInstances(r -> r.instanceIds(STAGING_A)).reservations());

    assertThat(prodA).hasSize(1);
    assertThat(prodA.get(0).instanceId()).isEqualTo(PROD_A);
    assertThat(prodA.get(0).privateDnsName()).isEqualTo("prod-a");
    assertThat(prodA.get(0).state().name()).isEqualTo(InstanceStateName.RUNNING);
    assertThat(prodA.get(0).state().code()).isEqualTo(16);
    assertThat(tags(prodA.get(0)))
        .isEqualTo(Map.of("eks:cluster-name", "prod", "kubernetes.io/cluster/prod", "owned"));
    assertThat(stagingA.get(0).privateDnsName()).isEqualTo("staging-a");
    assertThat(tags(stagingA.get(0)))
        .isEqualTo(Map.of("eks:cluster-name", "staging", "kubernetes.io/cluster/staging", "owned"));
  }

  @Test
  void shouldAnswerSeveralIdsInTheOrderAskedAndEveryInstanceWhenNoneIsNamed() {
    var two =
        instances(ec2.describeInstances(r -> r.instanceIds(STAGING_A, PROD_A)).reservations());
    var all = instances(ec2.describeInstances(r -> r.instanceIds(List.of())).reservations());

    assertThat(two).extracting(Instance::instanceId).containsExactly(STAGING_A, PROD_A);
    assertThat(all)
        .extracting(Instance::instanceId)
        .containsExactlyInAnyOrder(PROD_A, PROD_B, STAGING_A);
  }

  @Test
  void shouldFailTheWholeCallWithNotFoundNamingTheUnknownIdsAsEc2Does() {
    var one =
        catchThrowableOfType(
            Ec2Exception.class, () -> ec2.describeInstances(r -> r.instanceIds(UNKNOWN)));
    var mixed =
        catchThrowableOfType(
            Ec2Exception.class,
            () -> ec2.describeInstances(r -> r.instanceIds(PROD_A, UNKNOWN, "i-0ddddddd")));

    assertThat(one.statusCode()).isEqualTo(400);
    assertThat(one.awsErrorDetails().errorCode()).isEqualTo("InvalidInstanceID.NotFound");
    assertThat(one.awsErrorDetails().errorMessage())
        .isEqualTo("The instance ID '" + UNKNOWN + "' does not exist");
    assertThat(mixed.awsErrorDetails().errorCode()).isEqualTo("InvalidInstanceID.NotFound");
    assertThat(mixed.awsErrorDetails().errorMessage())
        .isEqualTo("The instance IDs '" + UNKNOWN + ", i-0ddddddd' do not exist");
  }

  @Test
  void shouldRejectAMalformedIdBeforeLookingAnyUp() {
    for (String bad : List.of("i-xyz", "i-0aaaaaaaaaaaaaa", "prod-a", "i-0AAAAAAAAAAAAAAA1")) {
      var e =
          catchThrowableOfType(
              Ec2Exception.class, () -> ec2.describeInstances(r -> r.instanceIds(UNKNOWN, bad)));
      assertThat(e.awsErrorDetails().errorCode()).as(bad).isEqualTo("InvalidInstanceID.Malformed");
      assertThat(e.awsErrorDetails().errorMessage()).as(bad).contains(bad);
    }
  }

  @Test
  void shouldRefuseFiltersAndPaginationItDoesNotSimulateRatherThanIgnoreThem() {
    var filtered =
        catchThrowableOfType(
            Ec2Exception.class,
            () ->
                ec2.describeInstances(
                    r ->
                        r.filters(
                            Filter.builder().name("tag:eks:cluster-name").values("prod").build())));
    var paged =
        catchThrowableOfType(Ec2Exception.class, () -> ec2.describeInstances(r -> r.maxResults(5)));

    assertThat(filtered.awsErrorDetails().errorCode()).isEqualTo("InvalidParameterCombination");
    assertThat(paged.awsErrorDetails().errorCode()).isEqualTo("InvalidParameterCombination");
  }

  @Test
  void shouldRecordEachDescribeInstancesItAnswers() {
    int before = stub.calls("DescribeInstances").size();
    ec2.describeInstances(r -> r.instanceIds(PROD_B));

    var calls = stub.calls("DescribeInstances");
    assertThat(calls).hasSize(before + 1);
    var last = calls.get(calls.size() - 1);
    assertThat(last.param("InstanceId.1")).contains(PROD_B);
    assertThat(last.region()).isEqualTo("us-east-1");
  }
}

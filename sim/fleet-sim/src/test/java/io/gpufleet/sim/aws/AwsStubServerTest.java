package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.aws.AwsClients;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.EventBridgeException;

class AwsStubServerTest {
  static AwsStubServer stub;

  @BeforeAll
  static void start() {
    stub = AwsStubServer.start();
  }

  @AfterAll
  static void stop() {
    stub.close();
  }

  @BeforeEach
  void reset() {
    stub.reset();
  }

  private static AwsClients clients(String region) {
    return new AwsClients(
        Region.of(region),
        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSTUB", "secret")),
        Optional.of(stub.endpoint()));
  }

  @Test
  void shouldRouteQueryProtocolCallsByActionAndReadTheRegionFromTheSignature() {
    stub.on(
        "GetSpotPlacementScores",
        call ->
            AwsStubServer.Reply.xml(
                "<GetSpotPlacementScoresResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
                    + "<spotPlacementScoreSet><item><region>eu-west-1</region>"
                    + "<score>7</score></item></spotPlacementScoreSet>"
                    + "</GetSpotPlacementScoresResponse>"));
    try (var ec2 = clients("eu-west-1").build(Ec2Client.builder())) {
      var scores =
          ec2.getSpotPlacementScores(
              r -> r.instanceTypes("p5.48xlarge", "p4d.24xlarge").targetCapacity(4));
      assertThat(scores.spotPlacementScores())
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.region()).isEqualTo("eu-west-1");
                assertThat(s.score()).isEqualTo(7);
              });
    }
    var call = stub.calls("GetSpotPlacementScores").get(0);
    assertThat(call.region()).isEqualTo("eu-west-1");
    assertThat(AwsStubServer.listParam(call, "InstanceType"))
        .containsExactly("p5.48xlarge", "p4d.24xlarge");
    assertThat(call.param("TargetCapacity")).contains("4");
  }

  @Test
  void shouldRouteJsonProtocolCallsByTarget() {
    stub.on(
        "AWSEvents.PutEvents",
        call ->
            AwsStubServer.Reply.json(
                "{\"FailedEntryCount\":0,\"Entries\":[{\"EventId\":\"e-1\"}]}"));
    try (var events = clients("us-east-1").build(EventBridgeClient.builder())) {
      var out = events.putEvents(r -> r.entries(e -> e.source("t").detailType("d").detail("{}")));
      assertThat(out.entries())
          .singleElement()
          .satisfies(e -> assertThat(e.eventId()).isEqualTo("e-1"));
    }
    assertThat(stub.calls("AWSEvents.PutEvents").get(0).body()).contains("\"Source\":\"t\"");
  }

  @Test
  void shouldFailUnknownOperationsAndInjectedFaultsPerRegion() {
    stub.on("DescribeRegions", call -> AwsStubServer.Reply.xml("<DescribeRegionsResponse/>"));
    stub.failNextIn("ap-south-1", "DescribeRegions", 1, 400, "UnauthorizedOperation");
    try (var ok = clients("us-west-2").build(Ec2Client.builder());
        var bad = clients("ap-south-1").build(Ec2Client.builder())) {
      assertThat(ok.describeRegions().regions()).isEmpty();
      assertThatThrownBy(bad::describeRegions)
          .isInstanceOf(Ec2Exception.class)
          .hasMessageContaining("UnauthorizedOperation");
      assertThat(bad.describeRegions().regions()).isEmpty();
      assertThatThrownBy(() -> ok.describeVpcs())
          .isInstanceOf(SdkException.class)
          .hasMessageContaining("no stub for DescribeVpcs");
    }
    try (var events = clients("us-east-1").build(EventBridgeClient.builder())) {
      assertThatThrownBy(() -> events.listRules(r -> r.limit(1)))
          .isInstanceOf(EventBridgeException.class)
          .hasMessageContaining("no stub for AWSEvents.ListRules");
    }
  }
}

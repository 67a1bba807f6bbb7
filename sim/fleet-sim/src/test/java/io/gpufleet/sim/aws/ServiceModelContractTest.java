package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.json.Json;
import io.gpufleet.testkit.aws.contract.BotocoreModels;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import io.gpufleet.testkit.aws.contract.ModelValidationInterceptor;
import io.gpufleet.testkit.aws.contract.ServiceModel;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.GetSpotPlacementScoresRequest;

/**
 * The service-model tier: requests are checked against botocore's service-2.json the way AWS's
 * front end checks them, through the globally registered interceptor of every SDK client in tests.
 */
class ServiceModelContractTest {
  static AwsStubServer stub;

  /** 17 regions: the default candidate list of a {@code regions: all} plan. */
  static final List<String> SEVENTEEN =
      List.of(
          "us-east-1",
          "us-east-2",
          "us-west-1",
          "us-west-2",
          "ca-central-1",
          "eu-west-1",
          "eu-west-2",
          "eu-west-3",
          "eu-central-1",
          "eu-north-1",
          "ap-northeast-1",
          "ap-northeast-2",
          "ap-southeast-1",
          "ap-southeast-2",
          "ap-south-1",
          "sa-east-1",
          "me-south-1");

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
    stub.on(
        "GetSpotPlacementScores",
        c ->
            AwsStubServer.Reply.xml(
                "<GetSpotPlacementScoresResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
                    + "<spotPlacementScoreSet/></GetSpotPlacementScoresResponse>"));
  }

  private static Ec2Client ec2() {
    return new AwsClients(
            Region.US_EAST_1,
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSTUB", "secret")),
            Optional.of(stub.endpoint()))
        .build(Ec2Client.builder());
  }

  private static GetSpotPlacementScoresRequest.Builder scores() {
    return GetSpotPlacementScoresRequest.builder()
        .instanceTypes("p5.48xlarge", "p5e.48xlarge", "p4d.24xlarge")
        .targetCapacity(4)
        .targetCapacityUnitType("units");
  }

  @Test
  void shouldRefuseGetSpotPlacementScoresWithSeventeenRegionsBeforeItReachesTheStub() {
    // Given a real EC2 client whose every request the model interceptor checks
    try (var ec2 = ec2()) {
      // When it asks for scores in 17 regions at once (AWS allows at most 10 RegionNames)
      assertThatThrownBy(() -> ec2.getSpotPlacementScores(scores().regionNames(SEVENTEEN).build()))
          // Then the call fails as AWS would refuse it
          .isInstanceOf(SdkClientException.class)
          .hasMessageContaining("GetSpotPlacementScoresRequest.RegionNames list size 17")
          .hasMessageContaining("maximum 10");
    }
    // and the stub never saw it, and the violation is recorded for the extension to fail the test
    assertThat(stub.calls()).isEmpty();
    assertThat(ContractViolations.drain())
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.service()).isEqualTo("ec2");
              assertThat(v.operation()).isEqualTo("GetSpotPlacementScores");
              assertThat(v.path()).isEqualTo("GetSpotPlacementScoresRequest.RegionNames");
            });
  }

  @Test
  void shouldLetTenRegionsThrough() {
    try (var ec2 = ec2()) {
      long before = ContractViolations.validatedRequests();

      ec2.getSpotPlacementScores(scores().regionNames(SEVENTEEN.subList(0, 10)).build());

      assertThat(ContractViolations.validatedRequests()).isGreaterThan(before);
    }
    assertThat(stub.calls("GetSpotPlacementScores")).hasSize(1);
    assertThat(ContractViolations.drain()).isEmpty();
  }

  @Test
  void shouldReportMissingRequiredMembersRangesAndEnums() {
    var violations =
        ModelValidationInterceptor.validate(
            GetSpotPlacementScoresRequest.builder()
                .instanceTypes("p5.48xlarge")
                .targetCapacityUnitType("gpus")
                .maxResults(5)
                .build(),
            "GetSpotPlacementScores");

    assertThat(violations)
        .extracting(ServiceModel.Violation::toString)
        .containsExactlyInAnyOrder(
            "ec2 GetSpotPlacementScores: GetSpotPlacementScoresRequest.TargetCapacity is required"
                + " but missing",
            "ec2 GetSpotPlacementScores: GetSpotPlacementScoresRequest.TargetCapacityUnitType"
                + " 'gpus' is not one of [\"vcpu\",\"memory-mib\",\"units\"]",
            "ec2 GetSpotPlacementScores: GetSpotPlacementScoresRequest.MaxResults 5 is below the"
                + " minimum 10");
  }

  @Test
  void shouldRefuseATargetCapacityOutsideItsRange() {
    var violations =
        ModelValidationInterceptor.validate(
            scores().targetCapacity(0).build(), "GetSpotPlacementScores");

    assertThat(violations)
        .singleElement()
        .satisfies(v -> assertThat(v.problem()).isEqualTo("0 is below the minimum 1"));
  }

  @Test
  void shouldTreatAnEmptyEc2ListAsAbsentBecauseTheQueryProtocolSendsNothingForIt() {
    assertThat(
            ModelValidationInterceptor.validate(
                scores().regionNames(List.of()).build(), "GetSpotPlacementScores"))
        .isEmpty();
  }

  @Test
  void shouldCheckJsonProtocolBodiesLengthsAndPatternsAndNestedRequiredMembers() throws Exception {
    var quotas = BotocoreModels.shared().forSdkPackage("servicequotas");
    var pricing = BotocoreModels.shared().forSdkPackage("pricing");

    var badQuota =
        quotas.validate(
            "GetServiceQuota",
            Json.MAPPER.readTree("{\"ServiceCode\":\"ec2\",\"QuotaCode\":\"L\"}"));
    var badFilter =
        pricing.validate(
            "GetProducts",
            Json.MAPPER.readTree(
                "{\"ServiceCode\":\"AmazonEC2\",\"Filters\":[{\"Type\":\"EXACT\","
                    + "\"Field\":\"instanceType\"}],\"MaxResults\":101}"));

    assertThat(badQuota)
        .extracting(ServiceModel.Violation::problem)
        .containsExactly("'L' does not match [a-zA-Z][a-zA-Z0-9-]{1,128}");
    assertThat(badFilter)
        .extracting(v -> v.path() + " " + v.problem())
        .containsExactlyInAnyOrder(
            "GetProductsRequest.Filters[0].Value is required but missing",
            "GetProductsRequest.Filters[0].Type 'EXACT' is not one of"
                + " [\"TERM_MATCH\",\"EQUALS\",\"CONTAINS\",\"ANY_OF\",\"NONE_OF\"]",
            "GetProductsRequest.MaxResults 101 is above the maximum 100");
  }

  @Test
  void shouldResolveTheBotocoreDirectoryOfEverySdkServiceTheFunctionsCall() {
    for (String sdk :
        List.of(
            "ec2",
            "eks",
            "sns",
            "eventbridge",
            "pricing",
            "s3",
            "servicequotas",
            "cloudwatch",
            "ssm",
            "sqs",
            "sts",
            "scheduler")) {
      assertThat(BotocoreModels.shared().forSdkPackage(sdk).protocol()).isNotBlank();
    }
    assertThat(BotocoreModels.shared().forSdkPackage("eventbridge").service()).isEqualTo("events");
  }

  @Test
  void shouldSayWhereItLookedWhenBotocoreIsMissing() {
    assertThatThrownBy(
            () ->
                BotocoreModels.locate(null, "/nowhere/bin/moto_server", java.nio.file.Path.of("/")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("/nowhere/lib/python*/site-packages/botocore/data")
        .hasMessageContaining(BotocoreModels.DATA_ENV);
  }

  @Test
  void shouldNameEveryRegionListIndexInNestedPaths() {
    var names = IntStream.rangeClosed(1, 11).mapToObj(i -> "r" + i).toList();
    assertThat(
            ModelValidationInterceptor.validate(
                scores().regionNames(names).build(), "GetSpotPlacementScores"))
        .extracting(ServiceModel.Violation::path)
        .containsExactly("GetSpotPlacementScoresRequest.RegionNames");
  }
}

package io.gpufleet.cost.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.json.Json;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.AwsStubServer.AwsFault;
import io.gpufleet.sim.aws.AwsStubServer.Reply;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import java.math.BigDecimal;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;

/**
 * The adapter's Cost Explorer client ({@link AwsJson}) against a local stub (moto has none of the
 * coverage calls) answering in the documented response shapes; every request is held to botocore's
 * ce model by the testkit's inspector before it is sent.
 */
class CostExplorerCommitmentAdapterTest {
  static final AwsStubServer STUB = AwsStubServer.start();
  static final String PREFIX = "AWSInsightsIndexService.";
  final ReportWindow window =
      new ReportWindow(
          "24h", Instant.parse("2026-11-29T02:00:00Z"), Instant.parse("2026-11-30T02:00:00Z"));

  final AwsJson ce = AwsJson.from(STUB.clients(Region.US_EAST_1), AwsJson.COST_EXPLORER);

  @BeforeEach
  void reset() {
    STUB.reset();
  }

  @AfterAll
  static void stop() {
    STUB.close();
  }

  static String page(String nextToken, String family, String covered, String total) {
    return """
        {"SavingsPlansCoverages":[{"Attributes":{"INSTANCE_FAMILY":"%s","REGION":"us-east-1"},
          "Coverage":{"SpendCoveredBySavingsPlans":"%s","OnDemandCost":"0","TotalCost":"%s",
          "CoveragePercentage":"0"},"TimePeriod":{"Start":"2026-11-29","End":"2026-11-30"}}]%s}
        """
        .formatted(
            family,
            covered,
            total,
            nextToken == null ? "" : ",\"NextToken\":\"" + nextToken + "\"");
  }

  void answerAll() {
    STUB.on(
        PREFIX + "GetSavingsPlansCoverage",
        c ->
            Reply.json(
                c.body().contains("\"NextToken\":\"p2\"")
                    ? page(null, "p5", "450.0", "600.0")
                    : page("p2", "p5", "870.0", "1320.0")));
    STUB.on(
        PREFIX + "GetSavingsPlansUtilization",
        c ->
            Reply.json(
                """
                {"Total":{"Utilization":{"TotalCommitment":"1000","UsedCommitment":"792",
                "UnusedCommitment":"208","UtilizationPercentage":"79.2"},
                "Savings":{"NetSavings":"528","OnDemandCostEquivalent":"1320"}}}
                """));
    STUB.on(
        PREFIX + "GetReservationCoverage",
        c ->
            Reply.json(
                """
                {"CoveragesByTime":[{"TimePeriod":{"Start":"2026-11-29","End":"2026-11-30"},
                "Groups":[{"Attributes":{"instanceType":"g6e.12xlarge","region":"us-east-1"},
                "Coverage":{"CoverageHours":{"OnDemandHours":"24","ReservedHours":"72",
                "TotalRunningHours":"96","CoverageHoursPercentage":"75"}}}]}]}
                """));
    STUB.on(
        PREFIX + "GetReservationUtilization",
        c ->
            Reply.json(
                """
                {"UtilizationsByTime":[],"Total":{"TotalAmortizedFee":"453.32",
                "OnDemandCostOfRIHoursUsed":"755.47"}}
                """));
  }

  @Test
  void shouldBlendSavingsPlanAndReservedCoverageIntoTheRateEachNodePaid() {
    answerAll();

    Commitments c = new CostExplorerCommitmentAdapter(ce).read(window);

    assertThat(c.source()).isEqualTo(Commitments.COST_EXPLORER);
    // two pages: (870 + 450) covered of (1320 + 600)
    assertThat(c.savingsPlansByFamily().get("us-east-1/p5").covered())
        .isCloseTo(1320 / 1920.0, within(1e-9));
    assertThat(c.savingsPlanRatio()).isCloseTo(0.6, within(1e-9));
    assertThat(c.reservedByType().get("us-east-1/g6e.12xlarge").covered()).isEqualTo(0.75);
    assertThat(c.reservedRatio()).isCloseTo(453.32 / 755.47, within(1e-9));

    var p5 = c.effective("us-east-1", "p5.48xlarge", new BigDecimal("55.04")).orElseThrow();
    double cov = 1320 / 1920.0;
    assertThat(p5.perHour().doubleValue()).isCloseTo(55.04 * (1 - cov + cov * 0.6), within(1e-6));
    assertThat(p5.source()).isEqualTo("savings-plan (cost-explorer)");
    assertThat(c.effective("us-east-1", "g5.xlarge", new BigDecimal("1.006"))).isEmpty();
    assertThat(c.effective("eu-west-1", "p5.48xlarge", new BigDecimal("55.04"))).isEmpty();
  }

  @Test
  void shouldAskForTheWindowsDaysGroupedAndFilteredAsTheServiceModelAllows() throws Exception {
    answerAll();
    long validated = ContractViolations.validatedRequests();

    new CostExplorerCommitmentAdapter(ce).read(window);

    assertThat(STUB.calls()).hasSize(5);
    JsonNode first =
        Json.MAPPER.readTree(STUB.calls(PREFIX + "GetSavingsPlansCoverage").get(0).body());
    assertThat(first.at("/TimePeriod/Start").asText()).isEqualTo("2026-11-29");
    assertThat(first.at("/TimePeriod/End").asText()).isEqualTo("2026-12-01");
    assertThat(first.at("/Granularity").asText()).isEqualTo("DAILY");
    assertThat(first.at("/GroupBy/0/Key").asText()).isEqualTo("INSTANCE_FAMILY");
    assertThat(first.at("/Filter/Dimensions/Key").asText()).isEqualTo("SERVICE");
    assertThat(STUB.calls().stream().map(AwsStubServer.Call::region)).containsOnly("us-east-1");
    // each of the five requests was held to botocore's ce model before it was sent
    assertThat(ContractViolations.validatedRequests() - validated).isEqualTo(5);
  }

  @Test
  void shouldLeaveListPricesWhenNothingIsCovered() {
    STUB.on(PREFIX + "GetSavingsPlansCoverage", c -> Reply.json("{\"SavingsPlansCoverages\":[]}"));
    STUB.on(
        PREFIX + "GetSavingsPlansUtilization", c -> Reply.json("{\"Total\":{\"Utilization\":{}}}"));
    STUB.on(PREFIX + "GetReservationCoverage", c -> Reply.json("{\"CoveragesByTime\":[]}"));
    STUB.on(PREFIX + "GetReservationUtilization", c -> Reply.json("{\"UtilizationsByTime\":[]}"));

    Commitments c = new CostExplorerCommitmentAdapter(ce).read(window);

    assertThat(c.effective("us-east-1", "p5.48xlarge", new BigDecimal("55.04"))).isEmpty();
    assertThat(c.notes()).singleElement().asString().contains("0 families");
  }

  @Test
  void shouldFollowReservationCoveragePagesByTheirNextPageToken() throws Exception {
    answerAll();
    STUB.on(
        PREFIX + "GetReservationCoverage",
        c ->
            Reply.json(
                """
                {"CoveragesByTime":[{"Groups":[{"Attributes":{"instanceType":"p5.48xlarge",
                "region":"us-east-1"},"Coverage":{"CoverageHours":{"ReservedHours":"%s",
                "TotalRunningHours":"24"}}}]}]%s}
                """
                    .formatted(
                        c.body().contains("\"NextPageToken\":\"r2\"") ? "6" : "18",
                        c.body().contains("NextPageToken") ? "" : ",\"NextPageToken\":\"r2\"")));

    Commitments c = new CostExplorerCommitmentAdapter(ce).read(window);

    // (18 + 6) reserved of (24 + 24) running hours
    assertThat(c.reservedByType().get("us-east-1/p5.48xlarge").covered()).isEqualTo(0.5);
    var pages = STUB.calls(PREFIX + "GetReservationCoverage");
    assertThat(pages).hasSize(2);
    assertThat(Json.MAPPER.readTree(pages.get(1).body()).path("NextPageToken").asText())
        .isEqualTo("r2");
    assertThat(c.notes()).singleElement().asString().endsWith("; 6 requests");
  }

  @Test
  void shouldAskForTheRateOfComputeAndEc2InstancePlansOnly() throws Exception {
    answerAll();

    new CostExplorerCommitmentAdapter(ce).read(window);

    // Given SageMaker plans in the account, their rate must not blend into the EC2 rate
    JsonNode utilisation =
        Json.MAPPER.readTree(STUB.calls(PREFIX + "GetSavingsPlansUtilization").get(0).body());
    assertThat(utilisation.at("/Filter/Dimensions/Key").asText()).isEqualTo("SAVINGS_PLANS_TYPE");
    assertThat(utilisation.at("/Filter/Dimensions/Values"))
        .extracting(JsonNode::asText)
        .containsExactly("ComputeSavingsPlans", "EC2InstanceSavingsPlans");
    // GetSavingsPlansCoverage takes no SAVINGS_PLANS_TYPE: it is narrowed to EC2 by service
    JsonNode coverage =
        Json.MAPPER.readTree(STUB.calls(PREFIX + "GetSavingsPlansCoverage").get(0).body());
    assertThat(coverage.at("/Filter/Dimensions/Key").asText()).isEqualTo("SERVICE");
    assertThat(coverage.at("/Filter/Dimensions/Values/0").asText())
        .isEqualTo(CostExplorerCommitmentAdapter.EC2);
  }

  @Test
  void shouldKeepReservedCoverageWhenTheAccountHasNoSavingsPlansData() {
    // Given an account without plans: Cost Explorer answers DataUnavailableException
    answerAll();
    STUB.failNext(
        PREFIX + "GetSavingsPlansCoverage", 1, new AwsFault(400, "DataUnavailableException"));

    Commitments c = new CostExplorerCommitmentAdapter(ce).read(window);

    // Then the Reserved Instance reads that follow still apply, and the fallback is named
    assertThat(c.savingsPlansByFamily()).isEmpty();
    assertThat(c.reservedByType().get("us-east-1/g6e.12xlarge").covered()).isEqualTo(0.75);
    assertThat(c.effective("us-east-1", "g6e.12xlarge", new BigDecimal("10.49")))
        .get()
        .extracting(Commitments.Effective::source)
        .isEqualTo("reserved (cost-explorer)");
    assertThat(c.fallbacks())
        .singleElement()
        .asString()
        .startsWith(
            "Savings Plans: Cost Explorer has no data (GetSavingsPlansCoverage answered"
                + " DataUnavailableException)");
    assertThat(c.notes()).hasSize(2).contains(c.fallbacks().get(0));
    // the utilization of plans that have no coverage is not asked for (USD 0.01 a request)
    assertThat(STUB.calls(PREFIX + "GetSavingsPlansUtilization")).isEmpty();
  }

  @Test
  void shouldKeepSavingsPlansWhenAReservationReadFails() {
    answerAll();
    STUB.failNext(PREFIX + "GetReservationUtilization", 1, AwsFault.JSON_ACCESS_DENIED);

    Commitments c = new CostExplorerCommitmentAdapter(ce).read(window);

    assertThat(c.savingsPlansByFamily()).containsKey("us-east-1/p5");
    assertThat(c.reservedByType()).isEmpty();
    assertThat(c.fallbacks())
        .singleElement()
        .asString()
        .startsWith(
            "Reserved Instances not applied: GetReservationUtilization failed"
                + " (AccessDeniedException");
  }

  @Test
  void shouldNotApplySavingsPlansWhoseRateCouldNotBeRead() {
    answerAll();
    STUB.failNext(PREFIX + "GetSavingsPlansUtilization", 1, AwsFault.JSON_ACCESS_DENIED);

    Commitments c = new CostExplorerCommitmentAdapter(ce).read(window);

    // coverage without a rate cannot price a node: Savings Plans are left out, reservations stay
    assertThat(c.effective("us-east-1", "p5.48xlarge", new BigDecimal("55.04"))).isEmpty();
    assertThat(c.reservedByType()).containsKey("us-east-1/g6e.12xlarge");
    assertThat(c.fallbacks())
        .singleElement()
        .asString()
        .contains("GetSavingsPlansUtilization failed (AccessDeniedException");
  }

  @Test
  void shouldFailWithCostExplorersErrorCodeWhenNeitherKindCanBeRead() {
    answerAll();
    STUB.failNext(PREFIX + "GetSavingsPlansCoverage", 1, AwsFault.JSON_ACCESS_DENIED);
    STUB.failNext(PREFIX + "GetReservationCoverage", 1, AwsFault.JSON_ACCESS_DENIED);

    assertThatThrownBy(() -> new CostExplorerCommitmentAdapter(ce).read(window))
        .isInstanceOfSatisfying(
            AwsCallException.class,
            e -> {
              assertThat(e.service()).isEqualTo("Cost Explorer");
              assertThat(e.operation()).isEqualTo("GetSavingsPlansCoverage");
              assertThat(e.code()).isEqualTo("AccessDeniedException");
            });
  }

  @Test
  void shouldRefuseAClientOfAnotherService() {
    var cloudWatch = AwsJson.from(STUB.clients(Region.US_EAST_1), AwsJson.CLOUDWATCH);

    assertThatThrownBy(() -> new CostExplorerCommitmentAdapter(cloudWatch))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not a Cost Explorer client");
  }
}

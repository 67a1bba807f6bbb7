package io.gpufleet.preflight.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.json.Json;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Service Quotas, Spot placement scores, Capacity Blocks, Spot prices and CloudWatch usage through
 * the real clients (the JSON client for Service Quotas and CloudWatch, the Query client for EC2)
 * against a local stub serving the documented response shapes.
 */
class AdaptersAgainstStubTest {
  static AwsStubServer stub;
  static RegionalClients clients;
  static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");
  SimCapacityAccount account;

  @BeforeAll
  static void start() {
    stub = AwsStubServer.start();
    clients = StubAccount.clients(stub);
  }

  @AfterAll
  static void stop() {
    clients.close();
    stub.close();
  }

  @BeforeEach
  void seed() {
    stub.reset();
    account = StubAccount.account(stub).now(NOW).install();
  }

  @Test
  void shouldResolveQuotaCodesByNameAcrossPagesAndReadTheUsageClassFromTheResponse() {
    // Given quotas listed three to a page
    account.quotaPageSize(3);
    account.region("eu-west-1").quota(QuotaBucket.P, CapacityType.SPOT, 768);
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);
    var g = new QuotaBucket.Key(QuotaBucket.G_VT, CapacityType.ON_DEMAND);

    // When
    var quotas = new ServiceQuotasAdapter(clients).quotas("eu-west-1", List.of(p, g));

    // Then
    assertThat(quotas.get(p).value()).isEqualTo(768);
    assertThat(quotas.get(p).quotaCode()).isEqualTo("L-7212CCBC");
    assertThat(quotas.get(p).resolvedBy()).isEqualTo("name");
    assertThat(quotas.get(p).usageClass()).isEqualTo("P/Spot");
    assertThat(quotas.get(g).value()).isZero();
    assertThat(stub.calls("ServiceQuotasV20190624.ListServiceQuotas").size()).isGreaterThan(1);
    assertThat(stub.calls("ServiceQuotasV20190624.ListServiceQuotas"))
        .allSatisfy(c -> assertThat(c.region()).isEqualTo("eu-west-1"));
  }

  @Test
  void shouldFallBackToTheReferenceCodeWhenTheNameChanged() {
    // Given a listing where the P Spot quota carries another name
    stub.on(
        "ServiceQuotasV20190624.ListServiceQuotas",
        c ->
            AwsStubServer.Reply.json(
                "{\"Quotas\":[{\"ServiceCode\":\"ec2\",\"QuotaCode\":\"L-7212CCBC\","
                    + "\"QuotaName\":\"All P Spot Instance Requests (renamed)\",\"Value\":1152.0,"
                    + "\"Adjustable\":true}]}"));
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);

    var quotas = new ServiceQuotasAdapter(clients).quotas("us-east-1", List.of(p));

    assertThat(quotas.get(p).value()).isEqualTo(1152);
    assertThat(quotas.get(p).resolvedBy()).isEqualTo("code");
    assertThat(quotas.get(p).usageClass()).isEqualTo("P/Spot");
  }

  @Test
  void shouldGetAQuotaByItsCodeWhenTheListingLacksIt() {
    StubAccount.listNoQuotas(stub);
    account.region("us-east-1").quota(QuotaBucket.TRN, CapacityType.ON_DEMAND, 512);
    var trn = new QuotaBucket.Key(QuotaBucket.TRN, CapacityType.ON_DEMAND);

    var quotas = new ServiceQuotasAdapter(clients).quotas("us-east-1", List.of(trn));

    assertThat(quotas.get(trn).value()).isEqualTo(512);
    assertThat(quotas.get(trn).resolvedBy()).isEqualTo("reference code");
    assertThat(stub.calls("ServiceQuotasV20190624.GetServiceQuota")).hasSize(1);
  }

  @Test
  void shouldFallBackToTheAwsDefaultWhenTheAccountNeverChangedTheQuota() {
    StubAccount.listNoQuotas(stub);
    stub.failNext("ServiceQuotasV20190624.GetServiceQuota", 1, 400, "NoSuchResourceException");
    var dl = new QuotaBucket.Key(QuotaBucket.DL, CapacityType.SPOT);

    var quotas = new ServiceQuotasAdapter(clients).quotas("us-east-1", List.of(dl));

    assertThat(quotas.get(dl).value()).isZero();
    assertThat(quotas.get(dl).resolvedBy()).isEqualTo("AWS default");
    assertThat(stub.calls("ServiceQuotasV20190624.GetAWSDefaultServiceQuota").get(0).body())
        .contains("\"QuotaCode\":\"L-85EED4F7\"");
  }

  @Test
  void shouldListRequestsAndRequestAnIncrease() {
    var adapter = new ServiceQuotasAdapter(clients);
    assertThat(adapter.requests("us-east-1", "L-7212CCBC")).isEmpty();

    var req = adapter.requestIncrease("us-east-1", "L-7212CCBC", 768);

    assertThat(req.status()).isEqualTo("PENDING");
    assertThat(adapter.requests("us-east-1", "L-7212CCBC"))
        .singleElement()
        .satisfies(r -> assertThat(r.desiredValue()).isEqualTo(768));
    assertThat(stub.calls("ServiceQuotasV20190624.RequestServiceQuotaIncrease").get(0).body())
        .contains("\"ServiceCode\":\"ec2\"")
        .contains("\"QuotaCode\":\"L-7212CCBC\"")
        .contains("\"DesiredValue\":768");
    assertThatThrownBy(() -> adapter.requestIncrease("us-east-1", "L-7212CCBC", 1024))
        .isInstanceOfSatisfying(
            AwsCallException.class,
            e -> {
              assertThat(e.code()).isEqualTo("ResourceAlreadyExistsException");
              assertThat(e.retryable()).isFalse();
            })
        .hasMessageContaining("already open");
  }

  @Test
  void shouldScoreAllRegionsInOneCall() {
    account.region("us-east-1").spotScore(9);
    account.region("us-west-2").spotScore(3);
    var ec2 = new Ec2CapacityAdapter(clients, "us-east-1");

    var scores =
        ec2.spotPlacementScores(
            List.of("us-east-1", "us-west-2", "eu-west-1"),
            List.of("p5.48xlarge", "p5e.48xlarge"),
            4);

    assertThat(scores.unknownReason()).isEmpty();
    assertThat(scores.byRegion())
        .containsExactlyInAnyOrderEntriesOf(Map.of("us-east-1", 9, "us-west-2", 3));
    var call = stub.calls("GetSpotPlacementScores");
    assertThat(call).hasSize(1);
    assertThat(AwsStubServer.listParam(call.get(0), "RegionName"))
        .containsExactly("us-east-1", "us-west-2", "eu-west-1");
    assertThat(call.get(0).param("TargetCapacity")).contains("4");
    assertThat(call.get(0).param("TargetCapacityUnitType")).contains("units");
  }

  @Test
  void shouldDegradeToScoreUnknownOnTheConfigCapOrMissingPermission() {
    var ec2 = new Ec2CapacityAdapter(clients, "us-east-1");
    stub.failNext("GetSpotPlacementScores", 1, 400, "MaxConfigLimitExceeded");
    var capped = ec2.spotPlacementScores(List.of("us-east-1"), List.of("p5.48xlarge"), 4);
    stub.failNext("GetSpotPlacementScores", 1, 403, "UnauthorizedOperation");
    var denied = ec2.spotPlacementScores(List.of("us-east-1"), List.of("p5.48xlarge"), 4);

    assertThat(capped.unknownReason())
        .hasValueSatisfying(r -> assertThat(r).contains("MaxConfigLimitExceeded"));
    assertThat(denied.unknownReason())
        .hasValueSatisfying(r -> assertThat(r).contains("permission"));
  }

  @Test
  void shouldReadCapacityBlockOfferings() {
    account
        .region("us-east-1")
        .offer("p5.48xlarge", "a")
        .block("p5.48xlarge", "a", 64, NOW.plus(Duration.ofDays(3)), 24, "74400.00");

    var offers =
        new Ec2CapacityAdapter(clients, "us-east-1")
            .capacityBlocks("us-east-1", "p5.48xlarge", 4, 24);

    assertThat(offers)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.availabilityZone()).isEqualTo("us-east-1a");
              assertThat(o.instanceCount()).isEqualTo(4);
              assertThat(o.durationHours()).isEqualTo(24);
              assertThat(o.upfrontFee()).isEqualByComparingTo("74400.00");
              assertThat(o.start()).isEqualTo(NOW.plus(Duration.ofDays(3)));
            });
    var call = stub.calls("DescribeCapacityBlockOfferings").get(0);
    assertThat(call.param("InstanceType")).contains("p5.48xlarge");
    assertThat(call.param("CapacityDurationHours")).contains("24");
  }

  @Test
  void shouldReadTheMaximumUsagePerClassInOneGetMetricDataCall() throws Exception {
    account
        .region("ap-northeast-1")
        .usage(QuotaBucket.P, CapacityType.SPOT, 192)
        .usage(QuotaBucket.G_VT, CapacityType.ON_DEMAND, 48);
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);
    var g = new QuotaBucket.Key(QuotaBucket.G_VT, CapacityType.ON_DEMAND);
    var trn = new QuotaBucket.Key(QuotaBucket.TRN, CapacityType.SPOT);
    var adapter = new CloudWatchUsageAdapter(clients, Clock.fixed(NOW, ZoneOffset.UTC));

    var usage =
        adapter.maxUsageLastHour(
            "ap-northeast-1", Map.of(p, "P/Spot", g, "G/OnDemand", trn, "Trn/Spot"));

    assertThat(usage).containsEntry(p, 192.0).containsEntry(g, 48.0).doesNotContainKey(trn);
    var calls = stub.calls(SimCapacityAccount.GET_METRIC_DATA);
    assertThat(calls).hasSize(1);
    JsonNode body = Json.MAPPER.readTree(calls.get(0).body());
    JsonNode stat = body.path("MetricDataQueries").path(0).path("MetricStat");
    assertThat(stat.path("Metric").path("Namespace").asText()).isEqualTo("AWS/Usage");
    assertThat(stat.path("Metric").path("MetricName").asText()).isEqualTo("ResourceCount");
    assertThat(stat.path("Stat").asText()).isEqualTo("Maximum");
    assertThat(stat.path("Period").asInt()).isEqualTo(60);
    // epoch seconds, as CloudWatch's JSON protocol sends timestamps
    assertThat(body.path("StartTime").isNumber()).isTrue();
    assertThat(body.path("StartTime").asLong())
        .isEqualTo(Instant.parse("2026-11-30T01:01:00Z").getEpochSecond());
    assertThat(body.path("EndTime").asLong())
        .isEqualTo(Instant.parse("2026-11-30T02:01:00Z").getEpochSecond());
    assertThat(calls.get(0).region()).isEqualTo("ap-northeast-1");
  }

  @Test
  void shouldFollowGetMetricDataPagesAndKeepTheMaximumOfEachClass() {
    // Given the P class's datapoints split over two pages (CloudWatch pages by datapoints)
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);
    var g = new QuotaBucket.Key(QuotaBucket.G_VT, CapacityType.ON_DEMAND);
    stub.on(
        SimCapacityAccount.GET_METRIC_DATA,
        c -> {
          boolean first = !c.body().contains("NextToken");
          return AwsStubServer.Reply.json(
              first
                  ? "{\"MetricDataResults\":[{\"Id\":\"u0\",\"Values\":[40.0,96.0]}],"
                      + "\"NextToken\":\"t1\"}"
                  : "{\"MetricDataResults\":[{\"Id\":\"u0\",\"Values\":[12.0]},"
                      + "{\"Id\":\"u1\",\"Values\":[8.0]}]}");
        });
    var adapter = new CloudWatchUsageAdapter(clients, Clock.fixed(NOW, ZoneOffset.UTC));
    var classes = new java.util.LinkedHashMap<QuotaBucket.Key, String>();
    classes.put(p, "P/Spot");
    classes.put(g, "G/OnDemand");

    var usage = adapter.maxUsageLastHour("eu-west-1", classes);

    assertThat(usage).containsExactlyInAnyOrderEntriesOf(Map.of(p, 96.0, g, 8.0));
    var calls = stub.calls(SimCapacityAccount.GET_METRIC_DATA);
    assertThat(calls).hasSize(2);
    assertThat(calls.get(1).body()).contains("\"NextToken\":\"t1\"");
  }

  @Test
  void shouldReadUsageOverTheSimulatedAccountsPages() {
    account
        .metricPageSize(1)
        .region("us-west-2")
        .usage(QuotaBucket.P, CapacityType.SPOT, 64)
        .usage(QuotaBucket.G_VT, CapacityType.ON_DEMAND, 16);
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);
    var g = new QuotaBucket.Key(QuotaBucket.G_VT, CapacityType.ON_DEMAND);

    var usage =
        new CloudWatchUsageAdapter(clients, Clock.fixed(NOW, ZoneOffset.UTC))
            .maxUsageLastHour("us-west-2", Map.of(p, "P/Spot", g, "G/OnDemand"));

    assertThat(usage).containsExactlyInAnyOrderEntriesOf(Map.of(p, 64.0, g, 16.0));
    assertThat(stub.calls(SimCapacityAccount.GET_METRIC_DATA)).hasSize(2);
  }

  @Test
  void shouldReadOfferingsTypesSpotPricesAndReservationsThroughTheStubToo() {
    account
        .region("us-east-2")
        .offer("g6e.12xlarge", "a", "b")
        .spotPrice("g6e.12xlarge", "a", "4.1000")
        .spotPrice("g6e.12xlarge", "b", "3.9000")
        .reservation("g6e.12xlarge", 3);
    var ec2 = new Ec2CapacityAdapter(clients, "us-east-1");

    assertThat(ec2.offerings("us-east-2", List.of("g6e.12xlarge", "p5.48xlarge")))
        .containsOnlyKeys("g6e.12xlarge");
    assertThat(ec2.instanceTypes("us-east-2", List.of("g6e.12xlarge")).get("g6e.12xlarge").vcpus())
        .isEqualTo(48);
    assertThat(ec2.spotPrices("us-east-2", List.of("g6e.12xlarge"), NOW).get("g6e.12xlarge"))
        .containsEntry("us-east-2b", new BigDecimal("3.9000"));
    assertThat(ec2.availableReservations("us-east-2", List.of("g6e.12xlarge")))
        .containsEntry("g6e.12xlarge", 3);
  }
}

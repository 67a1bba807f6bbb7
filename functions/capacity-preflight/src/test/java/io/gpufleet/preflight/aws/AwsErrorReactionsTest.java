package io.gpufleet.preflight.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.AwsStubServer.AwsFault;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the adapters react, through the real clients (the EC2 Query client, the JSON client for
 * Service Quotas), to the errors AWS sends in the shapes AWS sends them: EC2 query-protocol XML
 * with 503 RequestLimitExceeded / 403 UnauthorizedOperation / 400 MaxConfigLimitExceeded, Service
 * Quotas JSON {@code __type} TooManyRequestsException and AccessDeniedException. Each client must
 * parse the error code from the body (the adapters branch on it), retry throttling and not retry a
 * refusal.
 */
class AwsErrorReactionsTest {
  static AwsStubServer stub;
  static RegionalClients clients;
  static final List<String> TYPES = List.of("p5.48xlarge", "p5e.48xlarge", "p4d.24xlarge");

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
    var account = new SimCapacityAccount(stub).install();
    account.region("us-east-1").spotScore(8).quota(QuotaBucket.P, CapacityType.SPOT, 384);
  }

  @Test
  void shouldRetryEc2ThrottlingAndStillGetTheScore() {
    stub.failNext("GetSpotPlacementScores", 2, AwsFault.EC2_THROTTLED);

    var scores =
        new Ec2CapacityAdapter(clients, "us-east-1")
            .spotPlacementScores(List.of("us-east-1"), TYPES, 4);

    assertThat(scores.unknownReason()).isEmpty();
    assertThat(scores.byRegion()).containsEntry("us-east-1", 8);
    assertThat(stub.calls("GetSpotPlacementScores")).hasSize(3);
  }

  @Test
  void shouldNameTheConfigurationCapAndTheMissingPermissionWithoutRetryingThem() {
    var ec2 = new Ec2CapacityAdapter(clients, "us-east-1");

    stub.failNext("GetSpotPlacementScores", 1, AwsFault.SPOT_MAX_CONFIG);
    var capped = ec2.spotPlacementScores(List.of("us-east-1"), TYPES, 4);
    stub.failNext("GetSpotPlacementScores", 1, AwsFault.EC2_UNAUTHORIZED);
    var denied = ec2.spotPlacementScores(List.of("us-east-1"), TYPES, 4);

    assertThat(capped.unknownIn("us-east-1"))
        .hasValueSatisfying(r -> assertThat(r).contains("(MaxConfigLimitExceeded)"));
    assertThat(denied.unknownIn("us-east-1"))
        .hasValueSatisfying(
            r -> assertThat(r).contains("no permission").contains("UnauthorizedOperation"));
    assertThat(stub.calls("GetSpotPlacementScores")).hasSize(2);
  }

  @Test
  void shouldRetryServiceQuotasThrottling() {
    stub.failNext("ServiceQuotasV20190624.ListServiceQuotas", 2, AwsFault.QUOTAS_THROTTLED);
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);

    var quotas = new ServiceQuotasAdapter(clients).quotas("us-east-1", List.of(p));

    assertThat(quotas.get(p).value()).isEqualTo(384);
    assertThat(stub.calls("ServiceQuotasV20190624.ListServiceQuotas").size()).isGreaterThan(2);
  }

  @Test
  void shouldFailAtOnceWithTheCodeWhenServiceQuotasDeniesAccess() {
    stub.failNext("ServiceQuotasV20190624.ListServiceQuotas", 1, AwsFault.JSON_ACCESS_DENIED);
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);

    assertThatThrownBy(() -> new ServiceQuotasAdapter(clients).quotas("us-east-1", List.of(p)))
        .isInstanceOfSatisfying(
            AwsCallException.class,
            e -> {
              assertThat(e.code()).isEqualTo("AccessDeniedException");
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.operation()).isEqualTo("ListServiceQuotas");
              assertThat(e.retryable()).isFalse();
            });
    assertThat(stub.calls("ServiceQuotasV20190624.ListServiceQuotas")).hasSize(1);
  }

  @Test
  void shouldNotTakeAnotherErrorOfGetServiceQuotaForAnUnknownQuota() {
    // Given a listing without the quota, and GetServiceQuota throttled past the retries
    StubAccount.listNoQuotas(stub);
    stub.failNext("ServiceQuotasV20190624.GetServiceQuota", 3, AwsFault.QUOTAS_THROTTLED);
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);

    // Then the throttling is the error: only NoSuchResourceException falls back to the default
    assertThatThrownBy(() -> new ServiceQuotasAdapter(clients).quotas("us-east-1", List.of(p)))
        .isInstanceOfSatisfying(
            AwsCallException.class,
            e -> assertThat(e.code()).isEqualTo("TooManyRequestsException"));
    assertThat(stub.calls("ServiceQuotasV20190624.GetServiceQuota")).hasSize(3);
    assertThat(stub.calls("ServiceQuotasV20190624.GetAWSDefaultServiceQuota")).isEmpty();
  }

  @Test
  void shouldReportAQuotaNoSourceKnowsAsMissing() {
    // Given neither the account nor AWS's defaults know the quota
    StubAccount.listNoQuotas(stub);
    stub.failNext("ServiceQuotasV20190624.GetServiceQuota", 1, 400, "NoSuchResourceException");
    stub.failNext(
        "ServiceQuotasV20190624.GetAWSDefaultServiceQuota", 1, 400, "NoSuchResourceException");
    var p = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);

    var quotas = new ServiceQuotasAdapter(clients).quotas("us-east-1", List.of(p));

    assertThat(quotas).doesNotContainKey(p);
    assertThat(stub.calls("ServiceQuotasV20190624.GetAWSDefaultServiceQuota")).hasSize(1);
  }
}

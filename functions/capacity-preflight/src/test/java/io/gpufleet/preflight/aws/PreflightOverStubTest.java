package io.gpufleet.preflight.aws;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.Verdict;
import io.gpufleet.preflight.wiring.PreflightWiring;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The whole service through the real SDK clients: a region that keeps throttling is UNKNOWN. */
class PreflightOverStubTest {
  static final List<String> REGIONS = List.of("us-east-1", "us-west-2", "eu-west-1");
  AwsStubServer stub;
  RegionalClients clients;

  @BeforeEach
  void start() {
    stub = AwsStubServer.start();
    new SimCapacityAccount(stub).install().seedDemo(REGIONS);
    clients = StubAccount.clients(stub);
  }

  @AfterEach
  void stop() {
    clients.close();
    stub.close();
  }

  @Test
  void shouldMarkARegionWhoseQuotaCallsKeepThrottlingUnknownAfterTheSdkRetries() {
    // more throttles than the SDK's standard retry mode makes attempts
    stub.failNextIn(
        "us-west-2", "ServiceQuotasV20190624.ListServiceQuotas", 10, 400, "ThrottlingException");
    var plan =
        new Plan(
            "t",
            List.of(
                new PlanEntry(
                    "inf", List.of("g6e.12xlarge"), 1, CapacityType.ON_DEMAND, List.of())),
            REGIONS,
            false);

    var report =
        PreflightWiring.service(
                clients,
                "us-east-1",
                OnDemandPrices.none(),
                PreflightSettings.defaults(),
                Clock.systemUTC())
            .run(plan, List.of(), "test");

    var west =
        report.regions().stream()
            .filter(r -> r.region().equals("us-west-2"))
            .findFirst()
            .orElseThrow();
    assertThat(west.verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(west.blockers())
        .singleElement()
        .satisfies(
            b ->
                assertThat(b)
                    .startsWith("ListServiceQuotas failed")
                    .contains("ThrottlingException"));
    assertThat(report.regions())
        .filteredOn(r -> !r.region().equals("us-west-2"))
        .extracting(RegionResult::verdict)
        .doesNotContain(Verdict.UNKNOWN);
    var attempts =
        stub.calls("ServiceQuotasV20190624.ListServiceQuotas").stream()
            .filter(c -> c.region().equals("us-west-2"))
            .count();
    assertThat(attempts).isGreaterThan(1).isLessThan(10);
  }
}

package io.gpufleet.preflight.aws;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DescribeInstanceTypeOfferings, DescribeInstanceTypes and DescribeSpotPriceHistory through the EC2
 * Query client (every request held to the EC2 model) against the AWS emulator (moto server, or
 * LocalStack where Docker runs), in two regions served by one endpoint.
 */
class Ec2AdapterMotoTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();
  static RegionalClients clients;
  static Ec2CapacityAdapter ec2;

  @BeforeAll
  static void create() {
    var e = AWS.emulator();
    clients = new RegionalClients(e.credentials(), Optional.of(e.endpoint()));
    ec2 = new Ec2CapacityAdapter(clients, "us-east-1");
  }

  @AfterAll
  static void close() {
    clients.close();
  }

  @Test
  void shouldListTheZonesThatOfferATypeInEachRegion() {
    var east = ec2.offerings("us-east-1", List.of("p5.48xlarge", "g6e.12xlarge", "g5.12xlarge"));
    var west = ec2.offerings("us-west-2", List.of("g5.12xlarge"));

    assertThat(east).isNotEmpty();
    assertThat(east.values())
        .allSatisfy(zones -> assertThat(zones).allMatch(z -> z.startsWith("us-east-1")));
    assertThat(west).containsKey("g5.12xlarge");
    assertThat(west.get("g5.12xlarge")).allMatch(z -> z.startsWith("us-west-2"));
  }

  @Test
  void shouldReadVcpusAndGpusFromDescribeInstanceTypes() {
    var specs = ec2.instanceTypes("us-east-1", List.of("g5.12xlarge", "p4d.24xlarge"));

    assertThat(specs.get("g5.12xlarge").vcpus()).isEqualTo(48);
    assertThat(specs.get("g5.12xlarge").accelerators()).isEqualTo(4);
    assertThat(specs.get("p4d.24xlarge").vcpus()).isEqualTo(96);
    assertThat(specs.get("p4d.24xlarge").accelerators()).isEqualTo(8);
  }

  // DescribeCapacityReservations answers 500 on moto 5.2: AdaptersAgainstStubTest covers it.
  @Test
  void shouldReadTheSpotPricePerZone() {
    var prices = ec2.spotPrices("us-east-1", List.of("g5.12xlarge"), Instant.now());

    assertThat(prices).containsOnlyKeys("g5.12xlarge");
    assertThat(prices.get("g5.12xlarge"))
        .isNotEmpty()
        .allSatisfy(
            (zone, price) -> {
              assertThat(zone).startsWith("us-east-1");
              assertThat(price.signum()).isPositive();
            });
  }
}

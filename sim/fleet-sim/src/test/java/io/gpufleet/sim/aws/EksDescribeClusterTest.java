package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * KubeClients.forEks against the stub's scripted DescribeCluster (what moto cannot be made to
 * answer: a cluster with no endpoint yet, a throttled call, an endpoint of our choosing): the
 * request's shape, the client it builds, and each way it fails.
 */
class EksDescribeClusterTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-01T10:15:30Z"), ZoneOffset.UTC);

  private final AwsStubServer stub = AwsStubServer.start();
  private final AwsClients aws =
      new AwsClients(
          Region.EU_WEST_1,
          StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDTEST", "secret")),
          Optional.of(stub.endpoint()));

  @AfterEach
  void stop() {
    stub.close();
    aws.httpClient().close();
  }

  @Test
  void shouldSignAGetOfTheClusterAndPointTheClientAtItsEndpointWithItsCa() {
    // Given
    String ca = Base64.getEncoder().encodeToString("-----BEGIN CERTIFICATE-----".getBytes());
    SimEks.serve(stub, "prod-gpu", "https://ABC.gr7.eu-west-1.eks.amazonaws.com", Optional.of(ca));

    // When
    try (var client = KubeClients.forEks(aws, "prod-gpu", CLOCK)) {

      // Then
      assertThat(client.getConfiguration().getMasterUrl())
          .isEqualTo("https://ABC.gr7.eu-west-1.eks.amazonaws.com/");
      assertThat(client.getConfiguration().getCaCertData()).isEqualTo(ca);
      assertThat(client.getConfiguration().getOauthTokenProvider().getToken())
          .startsWith("k8s-aws-v1.");
    }
    var call = stub.calls().get(0);
    assertThat(call.operation()).isEqualTo("GET /clusters/prod-gpu");
    assertThat(call.region()).isEqualTo("eu-west-1");
    assertThat(call.headers().get("authorization")).contains("/eu-west-1/eks/aws4_request");
    assertThat(call.body()).isEmpty();
  }

  @Test
  void shouldRefuseAClusterWithNoEndpointYetNamingItsStatus() {
    stub.on(
        SimEks.describeCluster("new-gpu"),
        c ->
            new AwsStubServer.Reply(
                200,
                "application/json",
                "{\"cluster\":{\"name\":\"new-gpu\",\"status\":\"CREATING\"}}"));

    assertThatThrownBy(() -> KubeClients.forEks(aws, "new-gpu", CLOCK))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("EKS cluster new-gpu has no API endpoint (status CREATING)");
  }

  @Test
  void shouldRetryAThrottledDescribeAndReportARefusalWithItsCode() {
    SimEks.serve(stub, "prod-gpu", "https://x.eks.amazonaws.com", Optional.empty());
    stub.failNext(SimEks.describeCluster("prod-gpu"), 1, 429, "TooManyRequestsException");

    try (var client = KubeClients.forEks(aws, "prod-gpu", CLOCK)) {
      assertThat(client.getConfiguration().getMasterUrl()).startsWith("https://x.eks");
    }
    assertThat(stub.calls()).hasSize(2);

    // no cluster of that name: the stub has no answer for it (fail by default), a client error
    stub.failNext(SimEks.describeCluster("gone"), 1, 404, "ResourceNotFoundException");
    assertThatThrownBy(() -> KubeClients.forEks(aws, "gone", CLOCK))
        .isInstanceOfSatisfying(
            AwsCallException.class,
            e -> {
              assertThat(e.status()).isEqualTo(404);
              assertThat(e.code()).isEqualTo("ResourceNotFoundException");
              assertThat(e.service()).isEqualTo("EKS");
              assertThat(e.retryable()).isFalse();
            });
    assertThat(stub.calls()).hasSize(3);
  }

  @Test
  void shouldRefuseANameNoClusterCanHaveBeforeSendingIt() {
    assertThatThrownBy(() -> KubeClients.forEks(aws, "-prod-gpu", CLOCK))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DescribeClusterRequest.name");
    assertThat(stub.calls()).isEmpty();
    assertThat(ContractViolations.drain()).isNotEmpty();
  }
}

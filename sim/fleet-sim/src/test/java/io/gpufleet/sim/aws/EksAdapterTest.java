package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.eks.model.ResourceNotFoundException;

/**
 * KubeClients.forEks (DescribeCluster on the project's rest-json client) against an AWS emulator;
 * the SDK's EKS client creates the clusters and shows what EKS answers.
 */
class EksAdapterTest {
  @RegisterExtension
  static final AwsEmulatorExtension AWS = AwsEmulatorExtension.forServices("eks");

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2024-03-01T10:15:30Z"), ZoneOffset.UTC);
  private static EksClient eks;

  @BeforeAll
  static void createClient() {
    eks = AWS.emulator().clients().build(EksClient.builder());
  }

  @AfterAll
  static void closeClient() {
    eks.close();
  }

  private static void createCluster(String name) {
    eks.createCluster(
        r ->
            r.name(name)
                .version("1.31")
                .roleArn("arn:aws:iam::123456789012:role/eks-cluster-role")
                .resourcesVpcConfig(
                    v ->
                        v.subnetIds("subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002")
                            .endpointPrivateAccess(true)
                            .endpointPublicAccess(false)));
  }

  @Test
  void shouldPointTheKubernetesClientAtTheClusterEndpoint() {
    // Given
    createCluster("prod-gpu");
    var endpoint = eks.describeCluster(r -> r.name("prod-gpu")).cluster().endpoint();
    assertThat(endpoint).startsWith("https://");

    // When
    try (var client = KubeClients.forEks(AWS.emulator().clients(), "prod-gpu", CLOCK)) {

      // Then
      assertThat(URI.create(client.getConfiguration().getMasterUrl()))
          .isEqualTo(URI.create(endpoint.endsWith("/") ? endpoint : endpoint + "/"));
      assertThat(client.getConfiguration().getOauthTokenProvider().getToken())
          .startsWith("k8s-aws-v1.");
      assertThat(client.getConfiguration().getNamespace()).isEqualTo("default");
    }
  }

  @Test
  void shouldFailPreciselyWhenTheClusterDoesNotExist() {
    // Given no cluster named "missing-gpu"

    // When / Then
    assertThatThrownBy(() -> eks.describeCluster(r -> r.name("missing-gpu")))
        .isInstanceOfSatisfying(
            ResourceNotFoundException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(404);
              assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ResourceNotFoundException");
              assertThat(e.getMessage()).contains("missing-gpu");
            });
    assertThatThrownBy(() -> KubeClients.forEks(AWS.emulator().clients(), "missing-gpu", CLOCK))
        .isInstanceOfSatisfying(
            AwsCallException.class,
            e -> {
              assertThat(e.status()).isEqualTo(404);
              assertThat(e.code()).isEqualTo("ResourceNotFoundException");
              assertThat(e.operation()).isEqualTo("DescribeCluster");
              assertThat(e.retryable()).isFalse();
            })
        .hasMessageContaining("missing-gpu");
  }
}

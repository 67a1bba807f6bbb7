package io.gpufleet.core.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.testkit.aws.contract.AwsRestJsonModelInspector;
import io.gpufleet.testkit.aws.contract.BotocoreModels;
import org.junit.jupiter.api.Test;

/**
 * The rest-json client's request URI, and the model check every such request goes through (the
 * client against a server: fleet-sim's EksDescribeClusterTest and EksAdapterTest, on moto).
 */
class AwsRestJsonTest {
  final BotocoreModels models = BotocoreModels.shared();

  @Test
  void shouldPercentEncodeEachUriMemberAndRefuseAMissingOrUnplacedOne() {
    assertThat(AwsRestJson.fill("/clusters/{name}", AwsJson.input().put("name", "gpu a/b")))
        .isEqualTo("/clusters/gpu%20a%2Fb");
    assertThat(
            AwsRestJson.fill(
                "/{Bucket}/{Key+}", AwsJson.input().put("Bucket", "b").put("Key", "x/y z")))
        .isEqualTo("/b/x/y%20z");
    assertThatThrownBy(() -> AwsRestJson.fill("/clusters/{name}", AwsJson.input().put("name", "")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("/clusters/{name}: the URI member 'name' is missing or empty");
    assertThatThrownBy(
            () ->
                AwsRestJson.fill(
                    "/clusters/{name}", AwsJson.input().put("name", "a").put("include", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("/clusters/{name}: no place in the URI for the member 'include'");
  }

  @Test
  void shouldAgreeWithBotocoreOnDescribeCluster() {
    assertThat(
            AwsRestJsonModelInspector.validate(
                models,
                AwsRestJson.EKS,
                "DescribeCluster",
                "GET",
                "/clusters/{name}",
                AwsJson.input().put("name", "prod-gpu_1")))
        .isEmpty();
    assertThat(AwsRestJson.EKS.envId()).isEqualTo("EKS");
  }

  @Test
  void shouldNameEachWayARequestBreaksTheModel() {
    var wrongService = new AwsRestJson.Service("EKS", "eks", "elastick8s");

    assertThat(
            AwsRestJsonModelInspector.validate(
                models,
                wrongService,
                "DescribeCluster",
                "POST",
                "/cluster/{name}",
                AwsJson.input().put("name", "-starts-with-a-dash")))
        .extracting(v -> v.path() + " " + v.problem())
        .anySatisfy(s -> assertThat(s).startsWith("metadata.signingName is 'eks'"))
        .anySatisfy(s -> assertThat(s).startsWith("http.method is 'GET', the client sends 'POST'"))
        .anySatisfy(s -> assertThat(s).startsWith("http.requestUri is '/clusters/{name}'"))
        .anySatisfy(
            s ->
                assertThat(s).startsWith("DescribeClusterRequest.name").contains("does not match"));
    assertThat(
            AwsRestJsonModelInspector.validate(
                models,
                AwsRestJson.EKS,
                "DescribeCluster",
                "GET",
                "/clusters/{name}",
                AwsJson.input().put("name", "x".repeat(101))))
        .extracting(v -> v.path())
        .containsExactly("DescribeClusterRequest.name");
    assertThat(
            AwsRestJsonModelInspector.validate(
                models, AwsRestJson.EKS, "DescribeClusters", "GET", "/clusters", AwsJson.input()))
        .extracting(v -> v.problem())
        .containsExactly("is not an operation");
  }
}

package io.gpufleet.drain.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimEvents;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.AwsEmulatorExtension;
import io.gpufleet.sim.lambda.LambdaRuntime.Mode;
import io.gpufleet.sim.lambda.RuntimeTier;
import io.gpufleet.sim.lambda.SamTemplate;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.eks.EksClient;

/**
 * Lambda runtime tier: the shaded drain jar under the Runtime Interface Emulator with the real
 * runtime interface client, configured from template.yaml, with SnapStart container credentials and
 * with environment credentials; EKS and EventBridge from moto, the cluster simulated.
 */
class DrainLambdaRuntimeIT {
  static final String FUNCTION = "InterruptionDrainFunction";

  @RegisterExtension
  static final AwsEmulatorExtension AWS = AwsEmulatorExtension.forServices("eks", "events");

  static Path root;
  SimCluster cluster;
  @TempDir static Path work;

  @BeforeAll
  static void createTheEksCluster() {
    root = RuntimeTier.repositoryRoot();
    try (var eks = AWS.emulator().clients().build(EksClient.builder())) {
      eks.createCluster(
          r ->
              r.name(DemoFleet.CLUSTER)
                  .version("1.31")
                  .roleArn("arn:aws:iam::123456789012:role/eks-cluster-role")
                  .resourcesVpcConfig(v -> v.subnetIds("subnet-0a1b2c3d4e5f60001")));
    }
  }

  @BeforeEach
  void startTheDemoFleet() {
    // pods terminate 40 times faster than the function's (real) clock runs
    cluster = SimCluster.start(new SimTime(Instant.now(), 40));
    DemoFleet.populate(cluster);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  RuntimeTier.Result run(Path template, Mode mode) throws IOException {
    var event =
        Json.MAPPER.readTree(
            root.resolve("events/spot-interruption-warning-inference.json").toFile());
    var setup =
        new RuntimeTier.Setup(
            template,
            FUNCTION,
            new SamTemplate.Stack(
                "gpufleet",
                AWS.emulator().region().id(),
                "123456789012",
                Map.of("ClusterName", DemoFleet.CLUSTER),
                Map.of()),
            RuntimeTier.lambdaJar(root.resolve("functions/interruption-drain")),
            AWS.emulator().endpoint(),
            cluster.url(),
            work);
    return RuntimeTier.run(
        setup, mode, SimEvents.rebase(event, Instant.now()), Map.of(), RuntimeTier.runtimeLib());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void shouldDrainTheNodeWithTheCredentialsLambdaHandsOut(Mode mode) throws IOException {
    // Given the template's drain function, When a Spot warning arrives through the emulator
    var r = run(root.resolve("template.yaml"), mode);

    // Then it answers the drained node
    assertThat(r.invocation().status()).as(String.join("\n", r.output())).isEqualTo(200);
    var outcome = r.body().get(0);
    assertThat(outcome.path("status").asText()).as(r.invocation().body()).isEqualTo("DRAINED");
    assertThat(outcome.path("node").asText()).isEqualTo(DemoFleet.NODES.get(2).name());
    assertThat(
            cluster.node(DemoFleet.NODES.get(2).name()).orElseThrow().getSpec().getUnschedulable())
        .isTrue();
    // with EKS DescribeCluster and the outcome event signed as Lambda's credentials allow
    assertThat(r.aws()).extracting(c -> c.service()).contains("eks", "events");
    assertThat(RuntimeTier.lifecycleProblems(r)).as(String.join("\n", r.output())).isEmpty();
    // and logs and metrics as the template's Powertools variables say
    assertThat(RuntimeTier.telemetryProblems(r)).isEmpty();
    assertThat(r.emf())
        .anySatisfy(
            e ->
                assertThat(
                        e.path("EventsDrained").asInt() == 1 && e.path("PodsEvicted").asInt() == 5)
                    .isTrue());
  }

  @Test
  void shouldFailWhenTheTemplateNamesAHandlerTheJarDoesNotHave() throws IOException {
    // Given a template whose handler string has a typo
    Path template =
        mutated(
            "io.gpufleet.drain.wiring.DrainHandler::handleRequest",
            "io.gpufleet.drain.DrainHandlr::handleRequest");

    // When the function is invoked, Then the runtime cannot load it
    var r = run(template, Mode.ON_DEMAND);
    assertThat(r.invocation().body()).contains("ClassNotFoundException");
    assertThat(
            cluster.node(DemoFleet.NODES.get(2).name()).orElseThrow().getSpec().getUnschedulable())
        .isNotEqualTo(Boolean.TRUE);
  }

  @Test
  void shouldFailWhenTheTemplateRenamesAVariableTheCodeReads() throws IOException {
    // Given a template that sets EKS_CLUSTER_NAME where the code reads CLUSTER_NAME
    Path template =
        mutated(
            "          CLUSTER_NAME: !Ref ClusterName\n          DRAIN_ACTIONS",
            "          EKS_CLUSTER_NAME: !Ref ClusterName\n          DRAIN_ACTIONS");

    // When the function is invoked, Then INIT fails and names the variable
    var r = run(template, Mode.ON_DEMAND);
    assertThat(r.invocation().body()).contains("CLUSTER_NAME");
    assertThat(r.body().has("status")).isFalse();
  }

  Path mutated(String from, String to) {
    return RuntimeTier.mutatedTemplate(work, from, to);
  }
}

package io.gpufleet.schedule.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.DemoWorkloads;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.AwsEmulatorExtension;
import io.gpufleet.sim.lambda.LambdaRuntime.Mode;
import io.gpufleet.sim.lambda.RuntimeTier;
import io.gpufleet.sim.lambda.SamTemplate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Lambda runtime tier: the shaded disruption schedule jar under the Runtime Interface Emulator with
 * the real runtime interface client, configured from template.yaml (its default policy source is an
 * SSM parameter), in both credential modes; EKS and SSM from moto, the cluster simulated.
 */
class ScheduleLambdaRuntimeIT {
  static final String FUNCTION = "DisruptionScheduleFunction";

  @RegisterExtension
  static final AwsEmulatorExtension AWS = AwsEmulatorExtension.forServices("eks", "ssm", "events");

  @TempDir static Path work;
  static Path root;
  SimCluster cluster;

  static String policy;

  @BeforeAll
  static void createTheClusterAndThePolicy() throws IOException {
    root = RuntimeTier.repositoryRoot();
    policy = Files.readString(root.resolve("deploy/policy/disruption-schedule.example.yaml"));
    try (var eks = AWS.emulator().clients().build(EksClient.builder());
        var ssm = AWS.emulator().clients().build(SsmClient.builder())) {
      eks.createCluster(
          r ->
              r.name(DemoFleet.CLUSTER)
                  .version("1.31")
                  .roleArn("arn:aws:iam::123456789012:role/eks-cluster-role")
                  .resourcesVpcConfig(v -> v.subnetIds("subnet-0a1b2c3d4e5f60001")));
      // the template's default SchedulePolicy is ssm:/gpufleet/disruption-schedule
      ssm.putParameter(r -> r.name("/gpufleet/disruption-schedule").type("String").value(policy));
    }
  }

  @BeforeEach
  void startTheDemoFleet() {
    cluster = SimCluster.start(SimTime.realTime());
    DemoWorkloads.populate(cluster);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void shouldReconcileTheTickWithTheCredentialsLambdaHandsOut(Mode mode) throws IOException {
    // Given a scheduler tick (the service judges the policy at the moment it runs, not at the
    // tick's scheduled time, so the window expected is the one in force now)
    var parsed = io.gpufleet.schedule.policy.PolicyParser.parse(policy, "deploy/policy");
    String expected =
        io.gpufleet.schedule.policy.WindowClock.at(parsed, java.time.Instant.now()).name();
    byte[] tick = Files.readAllBytes(root.resolve("events/schedule-tick-night.json"));
    var setup =
        new RuntimeTier.Setup(
            root.resolve("template.yaml"),
            FUNCTION,
            new SamTemplate.Stack(
                "gpufleet",
                AWS.emulator().region().id(),
                "123456789012",
                Map.of("ClusterName", DemoFleet.CLUSTER),
                Map.of()),
            RuntimeTier.lambdaJar(root.resolve("functions/disruption-schedule")),
            AWS.emulator().endpoint(),
            cluster.url(),
            work);

    // When the function runs under the emulator
    var r = RuntimeTier.run(setup, mode, tick, Map.of(), RuntimeTier.runtimeLib());

    // Then it reads the policy from SSM and reconciles the off-hours window
    assertThat(r.invocation().status()).as(String.join("\n", r.output())).isEqualTo(200);
    var outcome = r.body();
    assertThat(outcome.path("status").asText()).as(r.invocation().body()).isEqualTo("RECONCILED");
    String after =
        io.gpufleet.schedule.policy.WindowClock.at(parsed, java.time.Instant.now()).name();
    assertThat(outcome.path("window").asText()).isIn(expected, after);
    if ("off-hours".equals(expected) && expected.equals(after)) {
      assertThat(outcome.path("changes").size()).as(r.invocation().body()).isGreaterThan(0);
      assertThat(
              cluster
                  .objects()
                  .require("NodePool", null, "gpu-h100")
                  .at("/spec/disruption/budgets/0/nodes")
                  .asText())
          .isEqualTo("50%");
    }
    assertThat(r.aws())
        .anySatisfy(
            c -> {
              assertThat(c.service()).isEqualTo("ssm");
              assertThat(c.target()).isEqualTo("AmazonSSM.GetParameter");
            });
    if (outcome.path("changes").size() > 0) {
      // the changes it reports were written to the API server
      assertThat(Json.MAPPER.writeValueAsString(r.kube())).contains("PATCH");
    }
    assertThat(RuntimeTier.lifecycleProblems(r)).as(String.join("\n", r.output())).isEmpty();
    assertThat(RuntimeTier.telemetryProblems(r)).isEmpty();
  }
}

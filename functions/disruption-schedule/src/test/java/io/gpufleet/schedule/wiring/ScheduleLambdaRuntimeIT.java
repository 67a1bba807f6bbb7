package io.gpufleet.schedule.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.HoldRecords;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.DemoWorkloads;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import io.gpufleet.testkit.lambda.LambdaRuntime.Mode;
import io.gpufleet.testkit.lambda.RuntimeTier;
import io.gpufleet.testkit.lambda.RuntimeTierFunction;
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
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Lambda runtime tier: the shaded disruption schedule jar under the Runtime Interface Emulator with
 * the real runtime interface client, configured from template.yaml (its default policy source is an
 * SSM parameter), in both credential modes; EKS and SSM from moto, the cluster simulated.
 */
class ScheduleLambdaRuntimeIT {
  static final RuntimeTierFunction FUNCTION =
      new RuntimeTierFunction(
          "DisruptionScheduleFunction", "disruption-schedule", DemoFleet.CLUSTER);

  @RegisterExtension
  static final AwsEmulatorExtension AWS =
      AwsEmulatorExtension.forServices("eks", "ssm", "events", "s3");

  /** The report bucket the template hands the schedule for its hold records. */
  static final String BUCKET = "gpufleet-reports-runtime-tier";

  @TempDir static Path work;
  static Path root;
  SimCluster cluster;

  static String policy;

  @BeforeAll
  static void createTheClusterAndThePolicy() throws IOException {
    root = RuntimeTier.repositoryRoot();
    policy = Files.readString(root.resolve("deploy/policy/disruption-schedule.example.yaml"));
    FUNCTION.createEksCluster(AWS.emulator());
    try (var ssm = AWS.emulator().clients().build(SsmClient.builder())) {
      // the template's default SchedulePolicy is ssm:/gpufleet/disruption-schedule
      ssm.putParameter(r -> r.name("/gpufleet/disruption-schedule").type("String").value(policy));
    }
    try (var s3 = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true))) {
      s3.createBucket(r -> r.bucket(BUCKET));
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
        FUNCTION.setup(AWS.emulator(), cluster.url(), work, Map.of("CostReportBucket", BUCKET));

    // When the function runs under the emulator
    var r = RuntimeTierFunction.run(setup, mode, tick);

    // Then it reads the policy from SSM and reconciles the off-hours window, the runtime's
    // lifecycle and telemetry as Lambda's
    assertThat(RuntimeTierFunction.problems(r)).isEmpty();
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
    // and records what it holds down under the stack's account and cluster (HoldRecords)
    try (var s3 = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true))) {
      // keyed by the tick's scheduled time, so a repeated delivery replaces it
      String key =
          HoldRecords.key(
              RuntimeTierFunction.ACCOUNT,
              DemoFleet.CLUSTER,
              java.time.Instant.parse(
                  Json.MAPPER.readTree(tick).at("/detail/scheduledTime").asText()));
      var keys =
          s3.listObjectsV2(b -> b.bucket(BUCKET).prefix(HoldRecords.PREFIX)).contents().stream()
              .map(o -> o.key())
              .toList();
      assertThat(keys).as(r.invocation().body()).containsExactly(key);
      for (String k : keys) {
        HoldRecords.check(k, s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(k)).asUtf8String());
      }
    }
    if (outcome.path("changes").size() > 0) {
      // the changes it reports were written to the API server
      assertThat(Json.MAPPER.writeValueAsString(r.kube())).contains("PATCH");
    }
  }
}

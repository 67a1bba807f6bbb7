package io.gpufleet.preflight.wiring;

import static org.assertj.core.api.Assertions.assertThat;

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
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Lambda runtime tier: the shaded capacity preflight jar under the Runtime Interface Emulator with
 * the real runtime interface client, configured from template.yaml, in both credential modes, on
 * the daily schedule's payload (a plan over six regions); AWS from moto, the cluster simulated.
 */
class PreflightLambdaRuntimeIT {
  static final String FUNCTION = "CapacityPreflightFunction";
  static final String CLUSTER = "sim-gpu-cluster";
  static final String BUCKET = "gpufleet-preflight-results-it";

  @RegisterExtension
  static final AwsEmulatorExtension AWS =
      AwsEmulatorExtension.forServices("eks", "s3", "ec2", "servicequotas", "cloudwatch", "events");

  @TempDir static Path work;
  static Path root;
  SimCluster cluster;

  @BeforeAll
  static void createTheClusterAndTheBucket() {
    root = RuntimeTier.repositoryRoot();
    try (var eks = AWS.emulator().clients().build(EksClient.builder());
        var s3 = AWS.emulator().clients().build(S3Client.builder())) {
      eks.createCluster(
          r ->
              r.name(CLUSTER)
                  .version("1.31")
                  .roleArn("arn:aws:iam::123456789012:role/eks-cluster-role")
                  .resourcesVpcConfig(v -> v.subnetIds("subnet-0a1b2c3d4e5f60001")));
      for (Mode mode : Mode.values()) {
        s3.createBucket(r -> r.bucket(bucket(mode)));
      }
    }
  }

  /** One results bucket per mode: the bucket's dedupe markers make a repeated run a no-op. */
  static String bucket(Mode mode) {
    return BUCKET + "-" + mode.name().toLowerCase().replace('_', '-');
  }

  @BeforeEach
  void startTheCluster() {
    cluster = SimCluster.start(SimTime.realTime());
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void shouldReportThePlanWithTheCredentialsLambdaHandsOut(Mode mode) throws IOException {
    // Given the daily schedule's payload
    byte[] payload = Files.readAllBytes(root.resolve("events/preflight-daily-schedule.json"));
    var setup =
        new RuntimeTier.Setup(
            root.resolve("template.yaml"),
            FUNCTION,
            new SamTemplate.Stack(
                "gpufleet",
                AWS.emulator().region().id(),
                "123456789012",
                Map.of("ClusterName", CLUSTER),
                Map.of("PreflightResultsBucket", bucket(mode))),
            RuntimeTier.lambdaJar(root.resolve("functions/capacity-preflight")),
            AWS.emulator().endpoint(),
            cluster.url(),
            work);

    // When the function runs under the emulator
    var r = RuntimeTier.run(setup, mode, payload, Map.of(), RuntimeTier.runtimeLib());

    // Then it ranks the plan's regions and stores the report in the template's results bucket
    assertThat(r.invocation().status()).as(String.join("\n", r.output())).isEqualTo(200);
    var outcome = r.body();
    assertThat(outcome.path("status").asText()).as(r.invocation().body()).isEqualTo("REPORTED");
    assertThat(outcome.path("reportUri").asText())
        .startsWith("s3://" + bucket(mode) + "/preflight/");
    assertThat(outcome.path("report").path("regions").size()).isEqualTo(6);
    assertThat(r.aws()).extracting(c -> c.service()).contains("eks", "ec2", "s3");
    assertThat(RuntimeTier.lifecycleProblems(r)).as(String.join("\n", r.output())).isEmpty();
    assertThat(RuntimeTier.telemetryProblems(r)).isEmpty();
  }
}

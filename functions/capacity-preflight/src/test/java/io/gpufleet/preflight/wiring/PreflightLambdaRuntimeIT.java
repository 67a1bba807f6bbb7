package io.gpufleet.preflight.wiring;

import static org.assertj.core.api.Assertions.assertThat;

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

/**
 * Lambda runtime tier: the shaded capacity preflight jar under the Runtime Interface Emulator with
 * the real runtime interface client, configured from template.yaml, in both credential modes, on
 * the daily schedule's payload (a plan over six regions); AWS from moto, the cluster simulated.
 */
class PreflightLambdaRuntimeIT {
  static final RuntimeTierFunction FUNCTION =
      new RuntimeTierFunction("CapacityPreflightFunction", "capacity-preflight", "sim-gpu-cluster");
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
    FUNCTION.createEksCluster(AWS.emulator());
    try (var s3 = AWS.emulator().clients().build(S3Client.builder())) {
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
        FUNCTION.setup(
            AWS.emulator(), cluster.url(), work, Map.of("PreflightResultsBucket", bucket(mode)));

    // When the function runs under the emulator
    var r = RuntimeTierFunction.run(setup, mode, payload);

    // Then it ranks the plan's regions and stores the report in the template's results bucket,
    // the runtime's lifecycle and telemetry as Lambda's
    assertThat(RuntimeTierFunction.problems(r)).isEmpty();
    var outcome = r.body();
    assertThat(outcome.path("status").asText()).as(r.invocation().body()).isEqualTo("REPORTED");
    assertThat(outcome.path("reportUri").asText())
        .startsWith("s3://" + bucket(mode) + "/preflight/");
    assertThat(outcome.path("report").path("regions").size()).isEqualTo(6);
    assertThat(r.aws()).extracting(c -> c.service()).contains("eks", "ec2", "s3");
  }
}

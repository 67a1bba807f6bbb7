package io.gpufleet.cost.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import io.gpufleet.testkit.lambda.LambdaRuntime.Mode;
import io.gpufleet.testkit.lambda.RuntimeTier;
import io.gpufleet.testkit.lambda.RuntimeTierFunction;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.InstanceType;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Lambda runtime tier: the shaded cost report jar under the Runtime Interface Emulator with the
 * real runtime interface client, configured from template.yaml, in both credential modes; EKS, EC2
 * and S3 from moto, the cluster simulated.
 */
class CostLambdaRuntimeIT {
  static final RuntimeTierFunction FUNCTION =
      new RuntimeTierFunction("CostReportFunction", "cost-report", DemoFleet.CLUSTER);
  static final String BUCKET = "gpufleet-cost-reports-it";

  @RegisterExtension
  static final AwsEmulatorExtension AWS =
      AwsEmulatorExtension.forServices("eks", "ec2", "s3", "events", "pricing");

  @TempDir static Path work;
  static Path root;
  static List<String> instanceIds;
  SimCluster cluster;

  @BeforeAll
  static void createTheClusterItsInstancesAndTheBucket() {
    root = RuntimeTier.repositoryRoot();
    FUNCTION.createEksCluster(AWS.emulator());
    try (var ec2 = AWS.emulator().clients().build(Ec2Client.builder());
        var s3 = AWS.emulator().clients().build(S3Client.builder())) {
      String ami = ec2.describeImages(r -> r.owners("amazon")).images().get(0).imageId();
      instanceIds =
          ec2
              .runInstances(
                  r ->
                      r.imageId(ami)
                          .instanceType(InstanceType.G6_E_12_XLARGE)
                          .minCount(2)
                          .maxCount(2)
                          .placement(p -> p.availabilityZone("us-east-1a"))
                          .tagSpecifications(
                              t ->
                                  t.resourceType(ResourceType.INSTANCE)
                                      .tags(
                                          Tag.builder()
                                              .key("kubernetes.io/cluster/" + DemoFleet.CLUSTER)
                                              .value("owned")
                                              .build())))
              .instances()
              .stream()
              .map(i -> i.instanceId())
              .toList();
      s3.createBucket(r -> r.bucket(BUCKET));
    }
  }

  @BeforeEach
  void startTheClusterWithANodePerInstance() {
    cluster = SimCluster.start(SimTime.realTime());
    for (int i = 0; i < instanceIds.size(); i++) {
      cluster.create(
          SimCluster.gpuNode(
              "ip-10-0-1-" + (10 + i) + ".ec2.internal",
              instanceIds.get(i),
              "us-east-1a",
              "g6e.12xlarge",
              "on-demand",
              null,
              "gpu-ng",
              4));
    }
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void shouldWriteTheMonthToDateReportWithTheCredentialsLambdaHandsOut(Mode mode)
      throws IOException {
    // Given the operator's month-to-date payload (moto's instances were launched just now, so a
    // report of yesterday would find none of them running)
    byte[] payload =
        java.nio.file.Files.readAllBytes(
            root.resolve("events/cost-report/direct-invoke-month-to-date.json"));
    var setup =
        FUNCTION.setup(
            root.resolve("template.yaml"),
            RuntimeTierFunction.STACK + "-" + mode.name().toLowerCase().replace('_', '-'),
            AWS.emulator(),
            cluster.url(),
            work,
            Map.of("CostReportBucket", BUCKET));

    // When the function runs under the emulator
    var r = RuntimeTierFunction.run(setup, mode, payload);

    // Then it reports every node of the cluster and writes the report to the template's bucket,
    // the runtime's lifecycle and telemetry as Lambda's
    assertThat(RuntimeTierFunction.problems(r)).isEmpty();
    assertThat(r.body().path("status").asText()).as(r.invocation().body()).isEqualTo("REPORTED");
    assertThat(r.body().path("nodes").asInt()).isEqualTo(instanceIds.size());
    // one cluster (no DrainAdditionalClusterNames): the answer has no per-cluster list
    assertThat(r.body().has("clusters")).as(r.invocation().body()).isFalse();
    assertThat(r.aws())
        .anySatisfy(
            c -> {
              assertThat(c.service()).isEqualTo("s3");
              assertThat(c.method()).isEqualTo("PUT");
              assertThat(c.path()).startsWith("/" + BUCKET + "/");
            });
    assertThat(r.aws()).extracting(c -> c.service()).contains("eks", "ec2");
  }
}

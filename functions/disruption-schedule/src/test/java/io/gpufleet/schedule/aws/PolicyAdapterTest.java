package io.gpufleet.schedule.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.schedule.PolicySourcePort;
import io.gpufleet.schedule.ScheduleSettings;
import io.gpufleet.schedule.policy.PolicyParser;
import io.gpufleet.schedule.wiring.ScheduleWiring;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.ParameterType;

/**
 * The policy read from an SSM parameter (AwsJson GetParameter) and from an S3 object (S3Rest), on
 * moto; and from the bench's SSM stub, which must answer as moto does.
 */
class PolicyAdapterTest {
  @RegisterExtension
  static final AwsEmulatorExtension AWS = AwsEmulatorExtension.forServices("ssm", "s3");

  static final String POLICY =
      """
      timeZone: America/New_York
      defaultWindow: off-hours
      windows: { business-hours: { days: mon-fri, hours: "09:00-17:00" } }
      workloads: [{ name: w, selector: { namespaces: [n] }, replicas: { off-hours: 0 } }]
      """;

  Supplier<io.gpufleet.core.aws.AwsClients> clients() {
    return () -> AWS.emulator().clients();
  }

  @Test
  void shouldReadAndValidateAPolicyFromASecureStringParameter() {
    try (var ssm = AWS.emulator().clients().build(SsmClient.builder())) {
      ssm.putParameter(
          r ->
              r.name("/gpufleet/disruption-schedule")
                  .type(ParameterType.SECURE_STRING)
                  .value(POLICY)
                  .overwrite(true));
    }
    PolicySourcePort source =
        ScheduleWiring.policySource("ssm:/gpufleet/disruption-schedule", clients());

    assertThat(source.name()).isEqualTo("ssm:/gpufleet/disruption-schedule");
    assertThat(PolicyParser.parse(source.load(), source.name()).zone().getId())
        .isEqualTo("America/New_York");
  }

  @Test
  void shouldReadAPolicyFromAnS3Object() {
    try (var s3 = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true))) {
      s3.createBucket(r -> r.bucket("gpufleet-policies"));
      s3.putObject(
          r -> r.bucket("gpufleet-policies").key("prod/schedule.yaml"),
          RequestBody.fromString(POLICY));
    }
    PolicySourcePort source =
        new S3PolicyAdapter(
            S3Rest.from(AWS.emulator().clients()), "gpufleet-policies", "prod/schedule.yaml");

    assertThat(source.load()).isEqualTo(POLICY);
    assertThat(source.name()).isEqualTo("s3://gpufleet-policies/prod/schedule.yaml");
  }

  @Test
  void shouldSayWhichS3PolicyIsMissing() {
    try (var s3 = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true))) {
      s3.createBucket(r -> r.bucket("gpufleet-policies-empty"));
    }
    PolicySourcePort source =
        ScheduleWiring.policySource("s3://gpufleet-policies-empty/prod/none.yaml", clients());

    assertThatThrownBy(source::load)
        .isInstanceOf(io.gpufleet.core.config.ConfigException.class)
        .hasMessage("policy s3://gpufleet-policies-empty/prod/none.yaml does not exist");
  }

  @Test
  void shouldFailReadingAMissingParameter() {
    PolicySourcePort source = ScheduleWiring.policySource("ssm:/gpufleet/missing", clients());
    assertThatThrownBy(source::load)
        .isInstanceOf(io.gpufleet.core.config.ConfigException.class)
        .hasMessageStartingWith("policy ssm:/gpufleet/missing does not exist")
        .hasMessageContaining("Parameter /gpufleet/missing not found");
  }

  @Test
  void shouldReadFromTheBenchStubAsFromMoto() {
    try (var stub = io.gpufleet.sim.aws.AwsStubServer.start()) {
      io.gpufleet.sim.aws.SimSsm.serve(stub).put("/gpufleet/disruption-schedule", POLICY);
      var aws =
          new io.gpufleet.core.aws.AwsClients(
              software.amazon.awssdk.regions.Region.US_EAST_1,
              software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                  software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("AKID", "s")),
              java.util.Optional.of(stub.endpoint()));

      assertThat(ScheduleWiring.policySource("ssm:/gpufleet/disruption-schedule", () -> aws).load())
          .isEqualTo(POLICY);
      assertThatThrownBy(
              () -> ScheduleWiring.policySource("ssm:/gpufleet/missing", () -> aws).load())
          .isInstanceOf(io.gpufleet.core.config.ConfigException.class)
          .hasMessage(
              "policy ssm:/gpufleet/missing does not exist (SSM: Parameter /gpufleet/missing not"
                  + " found.)");
    }
  }

  @Test
  void shouldRejectAMalformedPolicyLocationInSettings() {
    var env = java.util.Map.of("CLUSTER_NAME", "c", "SCHEDULE_POLICY", "s3://Bad_Bucket");
    assertThatThrownBy(() -> ScheduleSettings.from(new io.gpufleet.core.config.Settings(env)))
        .hasMessageContaining("is not s3://bucket/key");
  }
}

package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.SecretsManagerAdapter;
import io.gpufleet.core.aws.SecretsManagerAdapter.SecretUnavailableException;
import io.gpufleet.core.secret.SecretRef;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * SecretsManagerAdapter (through {@link io.gpufleet.core.aws.AwsJson}, held to botocore's model)
 * against moto's Secrets Manager, seeded with the SDK client; errors moto cannot be made to answer
 * from a stub.
 */
class SecretsManagerAdapterTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();
  static final String URL = "https://hooks.slack.com/services/T0001/B0001/moto0secret0value";

  private static SecretsManagerClient secretsManager;
  private static SecretsManagerAdapter reader;

  @BeforeAll
  static void clients() {
    var clients = AWS.emulator().clients();
    secretsManager = clients.build(SecretsManagerClient.builder());
    reader = new SecretsManagerAdapter(() -> clients);
  }

  @AfterAll
  static void close() {
    secretsManager.close();
  }

  @Test
  void shouldReadASecretsManagerSecretByItsArn() {
    var arn =
        secretsManager.createSecret(r -> r.name("gpufleet/test/slack").secretString(URL)).arn();

    assertThat(reader.read(new SecretRef.SecretsManagerSecret(arn))).isEqualTo(URL);
  }

  @Test
  void shouldRefuseABinarySecret() {
    var arn =
        secretsManager
            .createSecret(
                r -> r.name("gpufleet/test/binary").secretBinary(SdkBytes.fromUtf8String(URL)))
            .arn();

    assertThatThrownBy(() -> reader.read(new SecretRef.SecretsManagerSecret(arn)))
        .isInstanceOf(SecretUnavailableException.class)
        .hasMessage("secret " + arn + " holds binary data; store the value as the secret's string");
  }

  @Test
  void shouldNameAMissingSecretAndTheErrorCode() {
    var arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpufleet/absent-AbCdEf";

    assertThatThrownBy(() -> reader.read(new SecretRef.SecretsManagerSecret(arn)))
        .isInstanceOf(SecretUnavailableException.class)
        // Secrets Manager answers 400 (JSON protocol); moto 5.2.5 answers 404, so only the code
        .hasMessageStartingWith("cannot read secret " + arn + ": ResourceNotFoundException (HTTP ");
  }

  @Test
  void shouldNameTheErrorCodeAndStatusButNotTheServicesMessage() {
    try (var stub = AwsStubServer.start()) {
      stub.failNext("secretsmanager.GetSecretValue", 1, AwsStubServer.AwsFault.JSON_ACCESS_DENIED);
      var arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpufleet/denied-AbCdEf";

      assertThatThrownBy(
              () ->
                  new SecretsManagerAdapter(() -> stub.clients(Region.US_EAST_1))
                      .read(new SecretRef.SecretsManagerSecret(arn)))
          .isInstanceOf(SecretUnavailableException.class)
          .hasMessage("cannot read secret " + arn + ": AccessDeniedException (HTTP 400)");
      assertThat(stub.calls()).singleElement().satisfies(c -> assertThat(c.body()).contains(arn));
    }
  }

  @Test
  void shouldNameATransportFailureWithoutAStatus() {
    AwsClients closed;
    try (var stub = AwsStubServer.start()) {
      closed = stub.clients(Region.US_EAST_1);
    }
    var arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpufleet/unreachable-AbCdEf";

    assertThatThrownBy(
            () ->
                new SecretsManagerAdapter(() -> closed)
                    .read(new SecretRef.SecretsManagerSecret(arn)))
        .isInstanceOf(SecretUnavailableException.class)
        .hasMessage("cannot read secret " + arn + ": TransportError");
  }

  @Test
  void shouldNameOnlyTheTypeWhenNoCredentialsCanBeResolved() {
    var arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpufleet/nocreds-AbCdEf";
    var clients =
        new AwsClients(
            Region.US_EAST_1,
            () -> {
              throw SdkClientException.create("Unable to load credentials from /secret/path");
            },
            java.util.Optional.of(AWS.emulator().clients().endpointOverride().orElseThrow()));

    assertThatThrownBy(
            () ->
                new SecretsManagerAdapter(() -> clients)
                    .read(new SecretRef.SecretsManagerSecret(arn)))
        .isInstanceOf(SecretUnavailableException.class)
        .hasMessage("cannot read secret " + arn + ": SdkClientException");
  }
}

package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.aws.SecretsManagerAdapter;
import io.gpufleet.core.aws.SecretsManagerAdapter.SecretUnavailableException;
import io.gpufleet.core.secret.SecretRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/** SecretsManagerAdapter with the real SDK client against moto's Secrets Manager. */
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
}

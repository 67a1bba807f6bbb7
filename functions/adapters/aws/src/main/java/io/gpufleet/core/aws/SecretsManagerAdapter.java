package io.gpufleet.core.aws;

import io.gpufleet.core.secret.SecretPort;
import io.gpufleet.core.secret.SecretRef;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * Reads secrets with Secrets Manager {@code GetSecretValue} (the secret's string), building the
 * client on first use. Error messages name the reference and the service's error code, never a
 * value.
 */
public final class SecretsManagerAdapter implements SecretPort {
  private final Supplier<AwsClients> aws;
  private SecretsManagerClient secretsManager;

  public SecretsManagerAdapter(Supplier<AwsClients> aws) {
    this.aws = aws;
  }

  @Override
  public String read(SecretRef ref) {
    try {
      return switch (ref) {
        case SecretRef.SecretsManagerSecret s -> readSecret(s);
      };
    } catch (AwsServiceException e) {
      throw new SecretUnavailableException(
          "cannot read secret "
              + ref
              + ": "
              + e.awsErrorDetails().errorCode()
              + " (HTTP "
              + e.statusCode()
              + ")");
    } catch (SdkException e) {
      // The SDK's message may quote request parameters; keep only the type.
      throw new SecretUnavailableException(
          "cannot read secret " + ref + ": " + e.getClass().getSimpleName());
    }
  }

  private String readSecret(SecretRef.SecretsManagerSecret ref) {
    var response = secretsManager().getSecretValue(r -> r.secretId(ref.arn()));
    if (response.secretString() == null) {
      throw new SecretUnavailableException(
          "secret " + ref + " holds binary data; store the value as the secret's string");
    }
    return response.secretString();
  }

  private synchronized SecretsManagerClient secretsManager() {
    if (secretsManager == null) {
      secretsManager = aws.get().build(SecretsManagerClient.builder());
    }
    return secretsManager;
  }

  /** A secret that could not be read or is not stored as a string. */
  public static final class SecretUnavailableException extends IllegalStateException {
    public SecretUnavailableException(String message) {
      super(message);
    }
  }
}

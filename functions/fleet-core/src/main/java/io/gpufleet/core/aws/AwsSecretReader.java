package io.gpufleet.core.aws;

import io.gpufleet.core.secret.SecretReader;
import io.gpufleet.core.secret.SecretRef;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.ParameterType;

/**
 * Reads secrets with the SDK: SSM {@code GetParameter} (with decryption; only SecureString
 * parameters are accepted) or Secrets Manager {@code GetSecretValue} (the secret's string). Each
 * client is built on first use. Error messages name the reference and the service's error code,
 * never a value.
 */
public final class AwsSecretReader implements SecretReader {
  private final Supplier<AwsClients> aws;
  private SsmClient ssm;
  private SecretsManagerClient secretsManager;

  public AwsSecretReader(Supplier<AwsClients> aws) {
    this.aws = aws;
  }

  @Override
  public String read(SecretRef ref) {
    try {
      return switch (ref) {
        case SecretRef.SsmParameter p -> readParameter(p);
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
              + ")",
          e);
    } catch (SdkException e) {
      throw new SecretUnavailableException(
          "cannot read secret " + ref + ": " + e.getClass().getSimpleName(), e);
    }
  }

  private String readParameter(SecretRef.SsmParameter ref) {
    var parameter = ssm().getParameter(r -> r.name(ref.name()).withDecryption(true)).parameter();
    if (parameter.type() != ParameterType.SECURE_STRING) {
      throw new SecretUnavailableException(
          "secret "
              + ref
              + " is an SSM "
              + parameter.typeAsString()
              + " parameter (stored unencrypted, readable without kms:Decrypt); store it as a"
              + " SecureString");
    }
    return parameter.value();
  }

  private String readSecret(SecretRef.SecretsManagerSecret ref) {
    var response = secretsManager().getSecretValue(r -> r.secretId(ref.arn()));
    if (response.secretString() == null) {
      throw new SecretUnavailableException(
          "secret " + ref + " holds binary data; store the value as the secret's string");
    }
    return response.secretString();
  }

  private synchronized SsmClient ssm() {
    if (ssm == null) {
      ssm = aws.get().build(SsmClient.builder());
    }
    return ssm;
  }

  private synchronized SecretsManagerClient secretsManager() {
    if (secretsManager == null) {
      secretsManager = aws.get().build(SecretsManagerClient.builder());
    }
    return secretsManager;
  }

  /** A secret that could not be read or is stored where secrets must not be. */
  public static final class SecretUnavailableException extends IllegalStateException {
    public SecretUnavailableException(String message) {
      super(message);
    }

    public SecretUnavailableException(String message, Throwable cause) {
      // The SDK's message may quote request parameters; keep only the cause's type.
      super(message);
      addSuppressed(new IllegalStateException(cause.getClass().getName()));
    }
  }
}

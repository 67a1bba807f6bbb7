package io.gpufleet.core.aws;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.lambda.Lazy;
import io.gpufleet.core.secret.SecretPort;
import io.gpufleet.core.secret.SecretRef;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Reads secrets with Secrets Manager {@code GetSecretValue} (the secret's string) through {@link
 * AwsJson}, building the client on first use. Error messages name the reference and the service's
 * error code, never a value.
 */
public final class SecretsManagerAdapter implements SecretPort {
  private final Lazy<AwsJson> secretsManager;

  public SecretsManagerAdapter(Supplier<AwsClients> aws) {
    this.secretsManager = Lazy.of(() -> AwsJson.from(aws.get(), AwsJson.SECRETS_MANAGER));
  }

  @Override
  public String read(SecretRef ref) {
    try {
      return switch (ref) {
        case SecretRef.SecretsManagerSecret s -> readSecret(s);
      };
    } catch (AwsCallException e) {
      // only the code and status: a message may quote request parameters
      throw new SecretUnavailableException(
          "cannot read secret "
              + ref
              + ": "
              + e.code()
              + (e.status() > 0 ? " (HTTP " + e.status() + ")" : ""));
    } catch (SdkException e) {
      // signing failed (no credentials could be resolved): the SDK's message may quote its
      // sources; keep only the type
      throw new SecretUnavailableException(
          "cannot read secret " + ref + ": " + e.getClass().getSimpleName());
    }
  }

  private String readSecret(SecretRef.SecretsManagerSecret ref) {
    var input = AwsJson.input().put("SecretId", ref.arn());
    JsonNode answer = secretsManager.get().call("GetSecretValue", input);
    JsonNode value = answer.get("SecretString");
    if (value == null || !value.isTextual()) {
      throw new SecretUnavailableException(
          "secret " + ref + " holds binary data; store the value as the secret's string");
    }
    return value.asText();
  }

  /** A secret that could not be read or is not stored as a string. */
  public static final class SecretUnavailableException extends IllegalStateException {
    public SecretUnavailableException(String message) {
      super(message);
    }
  }
}

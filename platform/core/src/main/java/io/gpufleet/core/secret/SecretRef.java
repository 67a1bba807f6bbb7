package io.gpufleet.core.secret;

import io.gpufleet.core.config.ConfigException;
import java.util.regex.Pattern;

/**
 * Where a secret lives, as configured. The reference is not secret and may be logged; the value
 * never is. Secrets live in Secrets Manager: its SDK client adds under 1 MB to a Lambda jar (the
 * SSM client adds 6 MB, and the drain's jar is held to 25 MiB for its cold start).
 */
public sealed interface SecretRef {

  /** A Secrets Manager secret by its full ARN (the one ARN the function role may read). */
  record SecretsManagerSecret(String arn) implements SecretRef {
    @Override
    public String toString() {
      return arn;
    }
  }

  Pattern SECRET_ARN =
      Pattern.compile(
          "arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}");

  /**
   * Parses the reference held by setting {@code setting}; anything else (a URL pasted where the
   * reference belongs included) fails without echoing the value, which might be the secret itself.
   */
  static SecretRef parse(String setting, String value) {
    if (SECRET_ARN.matcher(value).matches()) {
      return new SecretsManagerSecret(value);
    }
    throw new ConfigException(
        setting
            + " must be the ARN of the Secrets Manager secret that holds the value"
            + " (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<suffix>); the value given ("
            + value.length()
            + " characters, not shown) is not");
  }
}

package io.gpufleet.core.secret;

import io.gpufleet.core.config.ConfigException;
import java.util.regex.Pattern;

/**
 * Where a secret lives, as configured: {@code ssm:/name} (an SSM SecureString parameter) or the ARN
 * of a Secrets Manager secret. The reference is not secret and may be logged; the value never is.
 */
public sealed interface SecretRef {
  /** {@code ssm:/name}: the SecureString parameter {@code /name}. */
  record SsmParameter(String name) implements SecretRef {
    @Override
    public String toString() {
      return "ssm:" + name;
    }
  }

  /** A Secrets Manager secret by its full ARN (the one ARN the function role may read). */
  record SecretsManagerSecret(String arn) implements SecretRef {
    @Override
    public String toString() {
      return arn;
    }
  }

  Pattern SSM = Pattern.compile("ssm:(/[A-Za-z0-9_.\\-/]{1,1011})");
  Pattern SECRET_ARN =
      Pattern.compile(
          "arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}");

  /**
   * Parses the reference held by setting {@code setting}; anything else (a URL pasted where the
   * reference belongs included) fails without echoing the value, which might be the secret itself.
   */
  static SecretRef parse(String setting, String value) {
    var ssm = SSM.matcher(value);
    if (ssm.matches()) {
      return new SsmParameter(ssm.group(1));
    }
    if (SECRET_ARN.matcher(value).matches()) {
      return new SecretsManagerSecret(value);
    }
    throw new ConfigException(
        setting
            + " must name where the secret is stored: ssm:/parameter-name (a SecureString) or"
            + " arn:aws:secretsmanager:<region>:<account>:secret:<name>; the value given ("
            + value.length()
            + " characters, not shown) is neither");
  }
}

package io.gpufleet.schedule.aws;

import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.schedule.PolicySourcePort;

/**
 * The policy in an SSM parameter (String or SecureString, decrypted): GetParameter through {@link
 * AwsJson} (no SDK client of SSM in the jar; the template's default policy source, so it is on
 * every run's path). A parameter that does not exist is a configuration error naming it.
 */
public final class SsmPolicyAdapter implements PolicySourcePort {
  private final AwsJson ssm;
  private final String parameter;

  public SsmPolicyAdapter(AwsJson ssm, String parameter) {
    this.ssm = ssm;
    this.parameter = parameter;
  }

  @Override
  public String load() {
    var input = AwsJson.input().put("Name", parameter).put("WithDecryption", true);
    try {
      var value = ssm.call("GetParameter", input).path("Parameter").path("Value");
      if (!value.isTextual()) {
        throw new ConfigException("policy " + name() + ": SSM answered without a value");
      }
      return value.asText();
    } catch (AwsCallException e) {
      if ("ParameterNotFound".equals(e.code())) {
        throw new ConfigException(
            "policy " + name() + " does not exist (SSM: " + e.awsMessage() + ")");
      }
      throw e;
    }
  }

  @Override
  public String name() {
    return "ssm:" + parameter;
  }
}

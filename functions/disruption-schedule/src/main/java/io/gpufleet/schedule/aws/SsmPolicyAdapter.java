package io.gpufleet.schedule.aws;

import io.gpufleet.schedule.PolicySourcePort;
import software.amazon.awssdk.services.ssm.SsmClient;

/** The policy in an SSM parameter (String or SecureString, decrypted). */
public final class SsmPolicyAdapter implements PolicySourcePort {
  private final SsmClient ssm;
  private final String parameter;

  public SsmPolicyAdapter(SsmClient ssm, String parameter) {
    this.ssm = ssm;
    this.parameter = parameter;
  }

  @Override
  public String load() {
    return ssm.getParameter(r -> r.name(parameter).withDecryption(true)).parameter().value();
  }

  @Override
  public String name() {
    return "ssm:" + parameter;
  }
}

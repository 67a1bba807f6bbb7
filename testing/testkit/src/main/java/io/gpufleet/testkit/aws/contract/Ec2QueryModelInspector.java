package io.gpufleet.testkit.aws.contract;

import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.aws.Ec2QueryInspector;
import java.util.List;
import java.util.Map;

/**
 * Holds every hand-made EC2 Query request ({@link Ec2Query}) to botocore's EC2 model, as {@link
 * ModelValidationInterceptor} does for SDK requests: the wire form is decoded through the model
 * with the EC2 protocol's serialisation rules ({@link QueryFormDecoder.Dialect#EC2}), typed, and
 * the resulting tree checked like any other request (required members, enums, bounds, patterns). A
 * request EC2 would refuse is recorded in {@link ContractViolations} and refused before it is sent.
 *
 * <p>Registered through {@code META-INF/services/io.gpufleet.core.aws.Ec2QueryInspector} in the
 * testkit jar, so every test class path holding the testkit validates every such request.
 */
public final class Ec2QueryModelInspector implements Ec2QueryInspector {
  @Override
  public void inspect(Map<String, String> params) {
    ContractViolations.judge(
        "EC2 service model", validate(BotocoreModels.shared().service("ec2"), params));
  }

  /** Every reason EC2 would refuse this form; empty when it is valid. */
  public static List<ServiceModel.Violation> validate(ServiceModel ec2, Map<String, String> form) {
    return new QueryFormDecoder(ec2, QueryFormDecoder.Dialect.EC2).validate(form);
  }
}

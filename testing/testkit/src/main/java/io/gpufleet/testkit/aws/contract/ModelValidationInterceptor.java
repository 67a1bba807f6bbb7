package io.gpufleet.testkit.aws.contract;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Validates every request an SDK client sends against the service's botocore model before it is
 * marshalled; a request AWS would refuse is recorded ({@link ContractViolations}) and refused with
 * a {@link SdkClientException} naming the violations, so it never reaches moto, LocalStack or a
 * stub.
 *
 * <p>Test scope only: registered for every SDK client of a test JVM through the classpath file
 * {@code software/amazon/awssdk/global/handlers/execution.interceptors} in the test resources of
 * each module that talks to AWS. Why here and not at the stub or a proxy in front of moto: the
 * typed request carries the model's member names, so one walk serves every protocol (EC2 query, AWS
 * query, JSON, REST) and every emulator, with no wire decoding to get wrong.
 */
public final class ModelValidationInterceptor implements ExecutionInterceptor {
  static final AtomicLong VALIDATED = new AtomicLong();

  @Override
  public void beforeExecution(
      Context.BeforeExecution context, ExecutionAttributes executionAttributes) {
    var request = context.request();
    String operation = executionAttributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    List<ServiceModel.Violation> violations = validate(request, operation);
    VALIDATED.incrementAndGet();
    if (!violations.isEmpty()) {
      ContractViolations.record(violations);
      throw SdkClientException.create(
          "request refused by the AWS service model (botocore): " + violations);
    }
  }

  /** The violations of one typed request (its service from the request's SDK package). */
  public static List<ServiceModel.Violation> validate(SdkPojo request, String operation) {
    String pkg = request.getClass().getPackageName();
    // software.amazon.awssdk.services.<service>.model
    String[] parts = pkg.split("\\.");
    String sdkService = parts.length >= 5 ? parts[4] : pkg;
    ServiceModel model = BotocoreModels.shared().forSdkPackage(sdkService);
    return model.validate(operation, SdkRequestTree.of(request, model.dropsEmptyLists()));
  }
}

package io.gpufleet.testkit.aws.contract;

import java.util.ArrayList;
import java.util.List;

/**
 * Every request a test sent that AWS would refuse, since the last {@link #drain()}. The interceptor
 * refuses such a request (it never reaches the emulator) and records it here, so a test fails even
 * when the code under test swallows the error (see {@link AwsContractExtension}).
 */
public final class ContractViolations {
  private static final List<ServiceModel.Violation> RECORDED = new ArrayList<>();

  private ContractViolations() {}

  static synchronized void record(List<ServiceModel.Violation> violations) {
    RECORDED.addAll(violations);
  }

  /**
   * What a hand-made protocol client's inspector does with its check's verdict: counts the request
   * as validated and, when the service would refuse it, records the violations and refuses it.
   *
   * @throws IllegalArgumentException naming {@code what} and the violations
   */
  static void judge(String what, List<ServiceModel.Violation> violations) {
    ModelValidationInterceptor.VALIDATED.incrementAndGet();
    if (!violations.isEmpty()) {
      record(violations);
      throw new IllegalArgumentException(
          "request refused by the " + what + " (botocore): " + violations);
    }
  }

  /** The violations recorded so far; forgets them (a test that provokes one takes it here). */
  public static synchronized List<ServiceModel.Violation> drain() {
    var out = List.copyOf(RECORDED);
    RECORDED.clear();
    return out;
  }

  /**
   * How many requests were validated in this JVM: SDK requests by the interceptor and EC2 Query
   * requests by {@link Ec2QueryModelInspector}, {@link AwsJsonModelInspector} and {@link
   * AwsQueryModelInspector} (0 means none is registered).
   */
  public static long validatedRequests() {
    return ModelValidationInterceptor.VALIDATED.get();
  }
}

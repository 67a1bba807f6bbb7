package io.gpufleet.testkit.aws.contract;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test (or its class, for requests sent in {@code @BeforeAll}/{@code @AfterAll}) that sent
 * an AWS request the service model refuses, even when the code under test caught the refusal.
 * Registered for every test through JUnit's extension autodetection ({@code
 * junit.jupiter.extensions.autodetection.enabled=true} in the module's junit-platform.properties).
 */
public final class AwsContractExtension implements AfterEachCallback, AfterAllCallback {

  @Override
  public void afterEach(ExtensionContext context) {
    failOnViolations(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    failOnViolations(context);
  }

  private static void failOnViolations(ExtensionContext context) {
    var violations = ContractViolations.drain();
    if (!violations.isEmpty()) {
      var sb =
          new StringBuilder(context.getDisplayName())
              .append(" sent AWS requests the service model refuses (AWS would answer 4xx):");
      violations.forEach(v -> sb.append("\n  - ").append(v));
      throw new AssertionError(sb.toString());
    }
  }
}

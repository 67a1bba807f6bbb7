package io.gpufleet.core.aws;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

class Ec2QueryPrimeTest {

  /**
   * The init warm-up signs with its own dummy keys for a fixed date and sends nothing: it must run
   * where no credentials, region or endpoint exist at all (surefire gives this JVM none of them, as
   * a SnapStart INIT has no usable ones).
   */
  @Test
  void primesTheFirstCallsClassesWithoutCredentialsRegionOrNetwork() {
    assertThatCode(Ec2Query::prime).doesNotThrowAnyException();
    assertThatCode(Ec2Query::prime)
        .as("again: nothing kept from the first")
        .doesNotThrowAnyException();
  }
}

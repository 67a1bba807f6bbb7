package io.gpufleet.testkit.arch;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

class PortsAndAdaptersTest {
  private static final String FIXTURE = "io.gpufleet.testkit.arch.fixture";

  @Test
  void shouldNameTheDomainClassThatUsesItsAdapter() {
    var classes = new ClassFileImporter().importPackages(FIXTURE);
    assertThatThrownBy(() -> PortsAndAdapters.check(FIXTURE, classes))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the domain owns its ports")
        .hasMessageContaining(FIXTURE + ".Domain.adapter()")
        .hasMessageContaining(FIXTURE + ".aws.Adapter");
  }

  @Test
  void shouldNameTheAdapterThatUsesTheWiring() {
    var classes =
        new ClassFileImporter()
            .importPackages(FIXTURE + ".aws", FIXTURE + ".wiring")
            .that(
                com.tngtech.archunit.base.DescribedPredicate.describe(
                    "not the domain", c -> !c.getSimpleName().equals("Domain")));
    assertThatThrownBy(() -> PortsAndAdapters.check(FIXTURE, classes))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("an adapter using it is a cycle")
        .hasMessageContaining(FIXTURE + ".aws.Adapter.wiring()");
  }
}

package io.gpufleet.cost;

import io.gpufleet.testkit.arch.PortsAndAdapters;
import org.junit.jupiter.api.Test;

/** The domain package uses none of its aws, k8s or wiring packages; no package cycle. */
class PackageRulesTest {
  @Test
  void shouldKeepPortsInTheDomainAndAdaptersOutsideIt() {
    PortsAndAdapters.check("io.gpufleet.cost");
  }
}

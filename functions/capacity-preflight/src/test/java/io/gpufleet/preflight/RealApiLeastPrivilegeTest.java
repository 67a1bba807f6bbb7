package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.testkit.real.LeastPrivilege;
import io.gpufleet.testkit.real.RealApiServerTest;
import io.gpufleet.testkit.real.RunsLast;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Runs after every other real-API test of the module: from the API server's audit log, what the
 * function's identities did against what deploy/rbac/capacity-preflight*.yaml grants them. The
 * report is written to target/least-privilege/capacity-preflight.txt.
 */
@RealApiServerTest
@RunsLast
class RealApiLeastPrivilegeTest {
  @Test
  void shouldHaveUsedEveryGrantAndBeenDeniedNothing(RealCluster cluster) {
    var report = LeastPrivilege.report(cluster, "capacity-preflight");
    Path file = report.write(Path.of("target", "least-privilege"));
    System.out.println(report.text() + "(written to " + file + ")");
    assertThat(report.problems()).as(report.text()).isEmpty();
  }
}

package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A confined child really runs in its cgroup, on this host's cgroup filesystem. Skipped only where
 * no cgroup can be made (no cpu controller, or not root and no delegated cgroup): the reason is in
 * the skip message. CI runs as root, where it runs.
 */
class ConfinedChildTest {

  static Confinement confinementOrSkip(int memoryMb) {
    var share = Confinement.of(memoryMb, "test");
    if (!share.confined()) {
      String reason = String.valueOf(share.describe().get("reason"));
      share.close();
      assumeTrue(false, "cgroups are not writable here: " + reason);
    }
    return share;
  }

  @Test
  void shouldRunTheChildInsideTheCgroupWithTheQuotaOfItsMemorySize() throws Exception {
    try (var share = confinementOrSkip(1024)) {
      var g = share.cgroup().orElseThrow();
      assertThat(g.quotaLine()).isIn("57886/100000", "57886 100000");
      assertThat(g.weight()).isIn(CpuCgroup.V1_SHARES, CpuCgroup.V2_WEIGHT);

      // cat waits on its stdin: the process is alive while we look at it
      var p = new ProcessBuilder(share.command(List.of("/bin/cat"))).start();
      try {
        long pid = p.pid();
        assertThat(p.isAlive()).isTrue();
        awaitMember(g, pid);
        assertThat(CpuCgroup.membership(Long.toString(pid))).contains(g.memberPath());
      } finally {
        p.getOutputStream().close();
        p.waitFor();
      }
      assertThat(g.pids()).isEmpty();
    }
  }

  @Test
  void shouldRunABenchChildJvmInsideTheCgroupAndRemoveTheCgroupAfterwards() throws Exception {
    java.nio.file.Path dir;
    try (var share = confinementOrSkip(1769)) {
      dir = share.cgroup().orElseThrow().dir();

      // runChild fails unless the child reports the cgroup it was made for
      Map<String, Object> r = share.runChild("where", Map.of());

      assertThat(r).containsEntry("role", "where");
      assertThat(r.get("childAvailableProcessors")).isEqualTo(2);
      assertThat(share.describe())
          .containsEntry("confined", true)
          .containsEntry("cpuQuotaUs", 100000L);
    }
    assertThat(Files.exists(dir)).isFalse();
  }

  /** The shell enters the group before it execs; wait for that (bounded), without sleeping. */
  private static void awaitMember(CpuCgroup g, long pid) throws Exception {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!g.pids().contains(pid)) {
      assertThat(System.nanoTime()).as("pid %d entered %s", pid, g.dir()).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }
}

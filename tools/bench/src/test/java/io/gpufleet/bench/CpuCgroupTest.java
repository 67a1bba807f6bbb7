package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cgroup writer against directories laid out like cgroupfs v1, v2 and a hybrid host. */
class CpuCgroupTest {
  @TempDir Path root;

  Path v1() throws Exception {
    Path cpu = Files.createDirectories(root.resolve("cpu"));
    Files.writeString(cpu.resolve("cpu.cfs_quota_us"), "-1\n");
    Files.writeString(cpu.resolve("cpu.cfs_period_us"), "100000\n");
    Files.writeString(cpu.resolve("cgroup.procs"), "1\n");
    return cpu;
  }

  void v2(String subtreeControl) throws Exception {
    Files.writeString(root.resolve("cgroup.controllers"), "cpuset cpu io memory hugetlb pids\n");
    Files.writeString(root.resolve("cgroup.subtree_control"), subtreeControl);
  }

  @Test
  void shouldWritePeriodAndQuotaInV1() throws Exception {
    Path cpu = v1();

    var attempt = CpuCgroup.create(root, "bench-1", 57_886, 100_000);

    assertThat(attempt.reason()).isNull();
    var g = attempt.cgroup().orElseThrow();
    assertThat(g.version()).isEqualTo(1);
    assertThat(g.dir()).isEqualTo(cpu.resolve("bench-1"));
    assertThat(Files.readString(cpu.resolve("bench-1/cpu.cfs_quota_us"))).isEqualTo("57886");
    assertThat(Files.readString(cpu.resolve("bench-1/cpu.cfs_period_us"))).isEqualTo("100000");
    assertThat(g.quotaLine()).isEqualTo("57886/100000");
    assertThat(Files.readString(cpu.resolve("bench-1/cpu.shares"))).isEqualTo("102400");
    assertThat(g.weight()).isEqualTo(102_400);
    assertThat(g.memberPath()).isEqualTo("/bench-1");
    // the parent's own quota is left alone
    assertThat(Files.readString(cpu.resolve("cpu.cfs_quota_us"))).isEqualTo("-1\n");
  }

  @Test
  void shouldWriteCpuMaxAndDelegateTheCpuControllerInV2() throws Exception {
    v2("memory pids\n");

    var g = CpuCgroup.create(root, "bench-2", 115_772, 100_000).cgroup().orElseThrow();

    assertThat(g.version()).isEqualTo(2);
    assertThat(Files.readString(root.resolve("bench-2/cpu.max"))).isEqualTo("115772 100000");
    assertThat(Files.readString(root.resolve("bench-2/cpu.weight"))).isEqualTo("10000");
    assertThat(Files.readString(root.resolve("cgroup.subtree_control"))).isEqualTo("+cpu");
  }

  @Test
  void shouldLeaveSubtreeControlAloneWhenCpuIsAlreadyDelegated() throws Exception {
    v2("cpu memory\n");

    CpuCgroup.create(root, "bench-3", 57_886, 100_000).cgroup().orElseThrow();

    assertThat(Files.readString(root.resolve("cgroup.subtree_control"))).isEqualTo("cpu memory\n");
  }

  @Test
  void shouldUseV1OnAHybridHostWhereTheUnifiedTreeHasNoCpuController() throws Exception {
    Path cpu = v1();
    Files.createDirectories(root.resolve("unified"));
    Files.writeString(root.resolve("unified/cgroup.controllers"), "\n");

    var g = CpuCgroup.create(root, "bench-4", 57_886, 100_000).cgroup().orElseThrow();

    assertThat(g.version()).isEqualTo(1);
    assertThat(g.dir().getParent()).isEqualTo(cpu);
  }

  @Test
  void shouldSayWhyWhenThereIsNoCpuController() throws Exception {
    Files.writeString(root.resolve("cgroup.controllers"), "memory pids\n");

    var attempt = CpuCgroup.create(root, "bench-5", 57_886, 100_000);

    assertThat(attempt.cgroup()).isEmpty();
    assertThat(attempt.reason()).contains("no cgroup cpu controller under " + root);
  }

  @Test
  void shouldSayWhyWhenTheGroupCannotBeCreated() throws Exception {
    Path cpu = v1();
    Files.writeString(cpu.resolve("bench-6"), "in the way");

    var attempt = CpuCgroup.create(root, "bench-6", 57_886, 100_000);

    assertThat(attempt.cgroup()).isEmpty();
    assertThat(attempt.reason()).startsWith("cannot create " + cpu.resolve("bench-6"));
  }

  @Test
  void shouldRemoveTheGroupOnClose() throws Exception {
    Path cpu = v1();
    var g = CpuCgroup.create(root, "bench-7", 57_886, 100_000).cgroup().orElseThrow();

    g.close();

    assertThat(cpu.resolve("bench-7")).doesNotExist();
    assertThat(cpu.resolve("cpu.cfs_quota_us")).exists();
  }

  @Test
  void shouldStartTheCommandThroughAShellThatEntersTheGroupFirst() throws Exception {
    v1();
    var g = CpuCgroup.create(root, "bench-8", 57_886, 100_000).cgroup().orElseThrow();

    var cmd = g.wrap(List.of("java", "-version"));

    assertThat(cmd)
        .containsExactly(
            "/bin/sh",
            "-c",
            "echo $$ > \"$0\" && exec \"$@\"",
            g.dir().resolve("cgroup.procs").toString(),
            "java",
            "-version");
  }

  @Test
  void shouldReadThrottlingFromCpuStatInBothVersions() throws Exception {
    v1();
    var g1 = CpuCgroup.create(root, "bench-9", 57_886, 100_000).cgroup().orElseThrow();
    Files.writeString(
        g1.dir().resolve("cpu.stat"),
        "nr_periods 120\nnr_throttled 40\nthrottled_time 2500000000\n");
    assertThat(g1.stat()).containsEntry("nr_periods", 120L).containsEntry("nr_throttled", 40L);
    assertThat(g1.throttledMs()).isEqualTo(2500);

    Path v2root = Files.createDirectories(root.resolve("v2"));
    Files.writeString(v2root.resolve("cgroup.controllers"), "cpu\n");
    var g2 = CpuCgroup.create(v2root, "bench-10", 57_886, 100_000).cgroup().orElseThrow();
    Files.writeString(
        g2.dir().resolve("cpu.stat"),
        "usage_usec 900000\nnr_periods 30\nnr_throttled 12\nthrottled_usec 640000\n");
    assertThat(g2.throttledMs()).isEqualTo(640);
  }

  @Test
  void shouldFindTheCpuCgroupOfAProcessInV1AndV2Listings() {
    assertThat(
            CpuCgroup.membership(
                List.of(
                    "4:memory:/process_api/x", "1:cpu:/gpufleet-bench-1-1", "2:cpuacct:/", "0::/")))
        .contains("/gpufleet-bench-1-1");
    assertThat(CpuCgroup.membership(List.of("3:cpu,cpuacct:/a/b", "0::/"))).contains("/a/b");
    assertThat(CpuCgroup.membership(List.of("0::/gpufleet-bench-2-1")))
        .contains("/gpufleet-bench-2-1");
  }
}

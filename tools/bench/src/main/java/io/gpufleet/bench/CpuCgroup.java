package io.gpufleet.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One CPU cgroup with a CFS quota, made for one benchmark child process and removed afterwards.
 * Works on cgroup v1 (the {@code cpu} controller's hierarchy, {@code cpu.cfs_quota_us} and {@code
 * cpu.cfs_period_us}) and v2 (the unified hierarchy, {@code cpu.max}); on a hybrid host the {@code
 * cpu} controller is bound to v1, so v1 is used. The child enters the group before its program
 * starts: {@link #wrap} starts it through {@code /bin/sh}, which writes its own pid to {@code
 * cgroup.procs} and then execs the program, so every thread the program ever has is confined.
 */
final class CpuCgroup implements AutoCloseable {
  static final Path SYSFS = Path.of("/sys/fs/cgroup");

  /** 100x the default weight (v1 cpu.shares 1024, v2 cpu.weight 100; 10000 is v2's maximum). */
  static final long V1_SHARES = 102_400;

  static final long V2_WEIGHT = 10_000;

  /** Which cgroup version and where new groups are made. */
  record Hierarchy(int version, Path parent) {}

  /** A group, or why none could be made. */
  record Attempt(Optional<CpuCgroup> cgroup, String reason) {
    static Attempt failed(String reason) {
      return new Attempt(Optional.empty(), reason);
    }
  }

  private final Hierarchy hierarchy;
  private final Path dir;
  private final long quotaUs;
  private final long periodUs;
  private final List<Path> written = new ArrayList<>();
  private boolean closed;

  private CpuCgroup(Hierarchy hierarchy, Path dir, long quotaUs, long periodUs) {
    this.hierarchy = hierarchy;
    this.dir = dir;
    this.quotaUs = quotaUs;
    this.periodUs = periodUs;
  }

  /** Finds the hierarchy that has the cpu controller under {@code root} (normally SYSFS). */
  static Optional<Hierarchy> detect(Path root) {
    for (String v1 : List.of("cpu", "cpu,cpuacct")) {
      Path dir = root.resolve(v1);
      if (Files.isRegularFile(dir.resolve("cpu.cfs_quota_us"))) {
        return Optional.of(new Hierarchy(1, dir));
      }
    }
    Path controllers = root.resolve("cgroup.controllers");
    if (Files.isRegularFile(controllers)) {
      try {
        for (String c : Files.readString(controllers).trim().split("\\s+")) {
          if (c.equals("cpu")) {
            return Optional.of(new Hierarchy(2, root));
          }
        }
      } catch (IOException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /**
   * Makes {@code name} under the hierarchy with the cpu controller and sets its quota, or says why
   * it cannot (no cpu controller, not writable): the caller then runs unconfined and says so.
   */
  static Attempt create(Path root, String name, long quotaUs, long periodUs) {
    if (quotaUs < 1000 || periodUs < 1000 || periodUs > 1_000_000) {
      throw new IllegalArgumentException(
          "CFS quota " + quotaUs + " / period " + periodUs + " out of the kernel's range");
    }
    var found = detect(root);
    if (found.isEmpty()) {
      return Attempt.failed(
          "no cgroup cpu controller under "
              + root
              + " (neither v1 cpu/cpu.cfs_quota_us nor v2 cgroup.controllers listing cpu)");
    }
    Hierarchy h = found.get();
    Path dir = h.parent().resolve(name);
    var group = new CpuCgroup(h, dir, quotaUs, periodUs);
    try {
      if (h.version() == 2) {
        group.enableCpuForChildren();
      }
      Files.createDirectory(dir);
    } catch (AccessDeniedException e) {
      return Attempt.failed(
          "cannot create " + dir + ": permission denied (needs root or a delegated cgroup)");
    } catch (java.nio.file.FileAlreadyExistsException e) {
      return Attempt.failed("cannot create " + dir + ": it already exists");
    } catch (FileSystemException e) {
      return Attempt.failed(
          "cannot create " + dir + ": " + (e.getReason() != null ? e.getReason() : e.toString()));
    } catch (IOException e) {
      return Attempt.failed("cannot create " + dir + ": " + e);
    }
    try {
      // the quota caps the group at its share; the weight (100x the default) lets it have that
      // share on a busy host too, as Lambda reserves it: other processes cannot crowd it out
      if (h.version() == 1) {
        group.write("cpu.cfs_period_us", Long.toString(periodUs));
        group.write("cpu.cfs_quota_us", Long.toString(quotaUs));
        group.write("cpu.shares", Long.toString(V1_SHARES));
      } else {
        group.write("cpu.max", quotaUs + " " + periodUs);
        group.write("cpu.weight", Long.toString(V2_WEIGHT));
      }
      String readBack = group.quotaLine();
      String expected = h.version() == 1 ? quotaUs + "/" + periodUs : quotaUs + " " + periodUs;
      if (!readBack.equals(expected)) {
        group.close();
        return Attempt.failed(
            "wrote quota " + expected + " to " + dir + " but it reads back as " + readBack);
      }
    } catch (IOException e) {
      group.close();
      return Attempt.failed("cannot set the CPU quota in " + dir + ": " + e);
    }
    return new Attempt(Optional.of(group), null);
  }

  /** v2: a child group only gets cpu.max if the parent delegates the cpu controller. */
  private void enableCpuForChildren() throws IOException {
    Path control = hierarchy.parent().resolve("cgroup.subtree_control");
    String current = Files.isRegularFile(control) ? Files.readString(control) : "";
    for (String c : current.trim().split("\\s+")) {
      if (c.equals("cpu")) {
        return;
      }
    }
    Files.writeString(control, "+cpu");
  }

  private void write(String file, String value) throws IOException {
    Path p = dir.resolve(file);
    Files.writeString(p, value, StandardCharsets.US_ASCII);
    written.add(p);
  }

  int version() {
    return hierarchy.version();
  }

  Path dir() {
    return dir;
  }

  long quotaUs() {
    return quotaUs;
  }

  long periodUs() {
    return periodUs;
  }

  Path procsFile() {
    return dir.resolve("cgroup.procs");
  }

  /** The weight as the kernel holds it (cpu.shares in v1, cpu.weight in v2). */
  long weight() throws IOException {
    return Long.parseLong(
        Files.readString(dir.resolve(hierarchy.version() == 1 ? "cpu.shares" : "cpu.weight"))
            .trim());
  }

  /** The quota as the kernel holds it: "quota/period" (v1) or the cpu.max line (v2). */
  String quotaLine() throws IOException {
    if (hierarchy.version() == 1) {
      return Files.readString(dir.resolve("cpu.cfs_quota_us")).trim()
          + "/"
          + Files.readString(dir.resolve("cpu.cfs_period_us")).trim();
    }
    return Files.readString(dir.resolve("cpu.max")).trim();
  }

  /**
   * {@code command} started so that it runs inside this group from its first instruction: a shell
   * moves itself into the group, then execs the command (same pid).
   */
  List<String> wrap(List<String> command) {
    var wrapped = new ArrayList<String>();
    wrapped.add("/bin/sh");
    wrapped.add("-c");
    wrapped.add("echo $$ > \"$0\" && exec \"$@\"");
    wrapped.add(procsFile().toString());
    wrapped.addAll(command);
    return wrapped;
  }

  /** Moves a running process (all its threads) into the group. */
  void add(long pid) throws IOException {
    Files.writeString(procsFile(), Long.toString(pid), StandardCharsets.US_ASCII);
  }

  /** The pids in the group now. */
  List<Long> pids() throws IOException {
    var out = new ArrayList<Long>();
    if (!Files.exists(procsFile())) {
      return out;
    }
    for (String line : Files.readAllLines(procsFile())) {
      if (!line.isBlank()) {
        out.add(Long.parseLong(line.trim()));
      }
    }
    return out;
  }

  /**
   * cpu.stat as numbers: v1 {@code nr_periods, nr_throttled, throttled_time} (ns), v2 also {@code
   * usage_usec} and {@code throttled_usec}. Empty when the file is missing.
   */
  Map<String, Long> stat() {
    var out = new LinkedHashMap<String, Long>();
    try {
      for (String line : Files.readAllLines(dir.resolve("cpu.stat"))) {
        String[] kv = line.trim().split("\\s+");
        if (kv.length == 2) {
          try {
            out.put(kv[0], Long.parseLong(kv[1]));
          } catch (NumberFormatException e) {
            // not a counter
          }
        }
      }
    } catch (IOException e) {
      return out;
    }
    return out;
  }

  /** Time the group was held back by its quota, in ms (from cpu.stat), or -1 if unknown. */
  long throttledMs() {
    var s = stat();
    if (s.containsKey("throttled_usec")) {
      return s.get("throttled_usec") / 1000;
    }
    if (s.containsKey("throttled_time")) {
      return s.get("throttled_time") / 1_000_000;
    }
    return -1;
  }

  /**
   * The cgroup path of {@code pid}'s cpu controller as /proc/PID/cgroup lists it ({@code "self"}
   * for this process): the v1 line naming cpu, else the v2 line ({@code 0::}).
   */
  static Optional<String> membership(String pid) {
    try {
      return membership(Files.readAllLines(Path.of("/proc", pid, "cgroup")));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static Optional<String> membership(List<String> procCgroupLines) {
    String v2 = null;
    for (String line : procCgroupLines) {
      String[] parts = line.split(":", 3);
      if (parts.length < 3) {
        continue;
      }
      for (String c : parts[1].split(",")) {
        if (c.equals("cpu")) {
          return Optional.of(parts[2]);
        }
      }
      if (parts[0].equals("0") && parts[1].isEmpty()) {
        v2 = parts[2];
      }
    }
    return Optional.ofNullable(v2);
  }

  /** The path /proc/PID/cgroup shows for a member of this group. */
  String memberPath() {
    return "/" + hierarchy.parent().relativize(dir).toString();
  }

  /**
   * Removes the group once its processes have exited (waits up to 2 s for the kernel to let go of
   * an exiting one). On a cgroup filesystem rmdir removes the control files with it; on a plain
   * directory laid out like one (tests) the files written here are removed first.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    long deadline = System.nanoTime() + 2_000_000_000L;
    while (true) {
      try {
        if (!Files.exists(dir)) {
          closed = true;
          return;
        }
        if (!isCgroupFs()) {
          for (Path p : written) {
            Files.deleteIfExists(p);
          }
          Files.deleteIfExists(procsFile());
          Files.deleteIfExists(dir.resolve("cpu.stat"));
        }
        Files.delete(dir);
        closed = true;
        return;
      } catch (DirectoryNotEmptyException e) {
        throw new IllegalStateException("cannot remove " + dir + ": not empty", e);
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("cannot remove " + dir + ": " + e, e);
        }
        Thread.onSpinWait();
        try {
          Thread.sleep(10); // bounded wait for an exiting task to leave the group
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while removing " + dir, ie);
        }
      }
    }
  }

  boolean isCgroupFs() throws IOException {
    return Files.getFileStore(hierarchy.parent()).type().startsWith("cgroup");
  }
}

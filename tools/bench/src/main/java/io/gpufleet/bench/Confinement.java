package io.gpufleet.bench;

import io.gpufleet.core.json.Json;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The CPU share one benchmark gives the function under test: a Lambda memory size, the cgroup that
 * enforces it (or why there is none), and how child processes are started in it. The servers the
 * function talks to (simulated API server, AWS stubs) stay in the bench process, outside.
 */
public final class Confinement implements AutoCloseable {
  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final Pattern NOT_IN_ANY_FUNCTION = Pattern.compile("^bc(prov|pkix|util)-");

  private final LambdaShare share;
  private final int environments;
  private final long quotaUs;
  private final boolean cappedByHost;
  private final Optional<CpuCgroup> cgroup;
  private final String reason;
  private final LambdaJava jvm;
  private final Thread cleanup;

  private Confinement(
      LambdaShare share,
      int environments,
      long quotaUs,
      boolean cappedByHost,
      Optional<CpuCgroup> cgroup,
      String reason) {
    this.share = share;
    this.environments = environments;
    this.quotaUs = quotaUs;
    this.cappedByHost = cappedByHost;
    this.cgroup = cgroup;
    this.reason = reason;
    this.jvm = LambdaJava.fromEnvironment();
    this.cleanup = new Thread(() -> cgroup.ifPresent(CpuCgroup::close), "cgroup-cleanup");
    if (cgroup.isPresent()) {
      Runtime.getRuntime().addShutdownHook(cleanup);
    }
  }

  /** One Lambda environment of {@code memoryMb}, confined when the host lets us. */
  /** Why a bench run with {@code --unconfined} has the whole machine (said in its JSON line). */
  static final String UNCONFINED_REASON = "--unconfined: the whole machine, on purpose";

  /** The share a bench gives its function: {@code memoryMb}'s, or the whole machine. */
  public static Confinement forBench(int memoryMb, boolean unconfined, String bench) {
    if (unconfined) {
      return unconfined(memoryMb, UNCONFINED_REASON);
    }
    return of(memoryMb, bench);
  }

  static Confinement of(int memoryMb, String label) {
    return of(new LambdaShare(memoryMb), 1, label, CpuCgroup.SYSFS);
  }

  /**
   * {@code environments} concurrent Lambda environments of one size in one child process (a burst
   * of events): their summed share, capped at the host's CPUs (which the bench says).
   */
  static Confinement of(LambdaShare share, int environments, String label, Path cgroupRoot) {
    int hostCpus = Runtime.getRuntime().availableProcessors();
    long wanted = share.quotaUs() * environments;
    long cap = hostCpus * LambdaShare.PERIOD_US;
    boolean capped = wanted > cap;
    long quota = Math.min(wanted, cap);
    String name = "gpufleet-bench-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet();
    var attempt = CpuCgroup.create(cgroupRoot, name, quota, LambdaShare.PERIOD_US);
    return new Confinement(share, environments, quota, capped, attempt.cgroup(), attempt.reason());
  }

  /** No cgroup on purpose (--unconfined): the whole machine, and the JSON says so. */
  static Confinement unconfined(int memoryMb, String why) {
    var share = new LambdaShare(memoryMb);
    return new Confinement(share, 1, share.quotaUs(), false, Optional.empty(), why);
  }

  LambdaShare share() {
    return share;
  }

  /** Whether the environments' summed share was cut to the host's CPUs. */
  boolean cappedByHost() {
    return cappedByHost;
  }

  boolean confined() {
    return cgroup.isPresent();
  }

  Optional<CpuCgroup> cgroup() {
    return cgroup;
  }

  /** {@code command} as it must be started to run inside the share. */
  List<String> command(List<String> command) {
    return cgroup.map(g -> g.wrap(command)).orElse(command);
  }

  /** The JVM the function runs on (Java 21 as in Lambda, when there is one: {@link LambdaJava}). */
  LambdaJava jvm() {
    return jvm;
  }

  /** A java command on {@link #jvm()} with the Lambda JVM flags of this size. */
  List<String> java(List<String> rest) {
    var cmd = new ArrayList<String>();
    cmd.add(jvm.java().toString());
    cmd.addAll(share.jvmFlags());
    cmd.addAll(rest);
    return command(cmd);
  }

  /**
   * The CLI's class path without the jars no function's deployment jar carries but that change what
   * the JDK does when a bench child runs a function's code: BouncyCastle (brought by the test
   * servers' libraries) is a {@code java.security.Provider} on the class path, and the JDK
   * instantiates every such provider the first time it looks one up by name (about half a second of
   * CPU in the drain child's first TLS handshake, jar signature checks included).
   */
  static String childClassPath(String cliClassPath) {
    return Arrays.stream(cliClassPath.split(File.pathSeparator))
        .filter(e -> !NOT_IN_ANY_FUNCTION.matcher(Path.of(e).getFileName().toString()).find())
        .collect(Collectors.joining(File.pathSeparator));
  }

  /** What the JSON line records about the share. */
  Map<String, Object> describe() {
    var m = new LinkedHashMap<String, Object>();
    m.put("memoryMb", share.memoryMb());
    m.put("cpuShare", Math.round(share.cpus() * 1000) / 1000.0);
    if (environments > 1) {
      m.put("environments", environments);
      m.put(
          "cpuShareAllEnvironments", Math.round(quotaUs * 1000.0 / LambdaShare.PERIOD_US) / 1000.0);
      m.put("cappedByHostCpus", cappedByHost);
    }
    m.put("cpuQuotaUs", quotaUs);
    m.put("cpuPeriodUs", LambdaShare.PERIOD_US);
    m.put("jvmFlags", String.join(" ", share.jvmFlags()));
    m.put("java", jvm.describe());
    m.put("confined", cgroup.isPresent());
    if (cgroup.isPresent()) {
      var g = cgroup.get();
      m.put("cgroupVersion", g.version());
      m.put("cgroup", g.dir().toString());
      try {
        m.put("cgroupCpuWeight", g.weight());
      } catch (IOException | NumberFormatException e) {
        m.put("cgroupCpuWeight", null);
      }
      var stat = g.stat();
      m.put("cgroupPeriods", stat.getOrDefault("nr_periods", -1L));
      m.put("cgroupThrottledPeriods", stat.getOrDefault("nr_throttled", -1L));
      m.put("cgroupThrottledMs", g.throttledMs());
    } else {
      m.put("reason", reason);
    }
    return m;
  }

  /** Says on stderr what the child gets, before the run. */
  void announce(PrintStream err, String bench) {
    if (cgroup.isPresent()) {
      err.printf(
          "bench %s: function confined to %d MB = %.3f CPU (quota %d us / %d us, cgroup v%d %s)%n",
          bench,
          share.memoryMb(),
          quotaUs / (double) LambdaShare.PERIOD_US,
          quotaUs,
          LambdaShare.PERIOD_US,
          cgroup.get().version(),
          cgroup.get().dir());
    } else {
      err.printf(
          "bench %s: NOT confined (%s): the function runs with the whole machine%n", bench, reason);
    }
  }

  /**
   * Runs one bench child ({@link BenchChild}) in the share and returns its JSON line (the last line
   * it prints); its stderr goes to ours. The input goes as one JSON line on its stdin. A line
   * {@code @NAME} from the child runs {@code marks.get(NAME)} here (in the bench process: the
   * servers' side) before the child goes on, so phases are separated without guessing. Throws when
   * the child fails or ran outside the cgroup.
   */
  Map<String, Object> runChild(
      String role, Map<String, Object> input, Map<String, Runnable> marks, List<String> jvmExtra)
      throws IOException, InterruptedException {
    var rest = new ArrayList<String>(jvmExtra);
    rest.add("-cp");
    rest.add(childClassPath(System.getProperty("java.class.path")));
    rest.add("-Dgpufleet.logFormat=text");
    rest.add(BenchChild.class.getName());
    rest.add(role);
    var pb = new ProcessBuilder(java(rest)).redirectError(ProcessBuilder.Redirect.INHERIT);
    var p = pb.start();
    String last = null;
    try (var toChild = p.getOutputStream();
        var r =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      toChild.write((Json.write(input) + "\n").getBytes(StandardCharsets.UTF_8));
      toChild.flush();
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith("@")) {
          var hook = marks.get(line.substring(1).trim());
          if (hook != null) {
            hook.run();
          }
          toChild.write('\n');
          toChild.flush();
          continue;
        }
        last = line;
      }
    } finally {
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
      }
    }
    if (p.isAlive()) {
      throw new IllegalStateException("bench child " + role + " did not finish in 10 minutes");
    }
    if (p.exitValue() != 0 || last == null || !last.startsWith("{")) {
      throw new IllegalStateException(
          "bench child " + role + " exited " + p.exitValue() + " (its stderr is above)");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> result = Json.MAPPER.readValue(last, LinkedHashMap.class);
    Object where = result.remove("childCgroup");
    if (cgroup.isPresent() && !cgroup.get().memberPath().equals(where)) {
      throw new IllegalStateException(
          "bench child ran in cgroup "
              + where
              + ", not in "
              + cgroup.get().memberPath()
              + ": its figures would not be at the share");
    }
    return result;
  }

  Map<String, Object> runChild(String role, Map<String, Object> input)
      throws IOException, InterruptedException {
    return runChild(role, input, Map.of(), List.of());
  }

  @Override
  public void close() {
    if (cgroup.isPresent()) {
      cgroup.get().close();
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException e) {
        // shutting down: the hook runs anyway
      }
    }
  }
}

package io.gpufleet.bench;

import io.gpufleet.core.config.ConfigException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;

/**
 * What Lambda gives a function of a given memory size, as the benchmarks reproduce it.
 *
 * <ul>
 *   <li>CPU: "at 1,769 MB, a function has the equivalent of one vCPU" (Lambda developer guide,
 *       "Configuring function memory"), proportional below and above: the share is {@code memory /
 *       1769} of one CPU, enforced here by a CFS quota over a 100 ms period.
 *   <li>CPUs the JVM sees: 2 up to 3,008 MB, then 3 to 6 (measured by rwnx/lambda-cpuinfo: 128-3008
 *       MB → 2, 3009-5307 → 3, 5308-7076 → 4, 7077-8845 → 5, 8846-10240 → 6), so the JVM sizes its
 *       thread pools as in Lambda while the quota limits the CPU time.
 *   <li>JVM flags of the java17/java21 managed runtimes' launch command (as published from inside
 *       the runtime): {@code -XX:MaxHeapSize} = 85 % of the memory size, {@code -XX:+UseSerialGC},
 *       {@code -XX:+TieredCompilation -XX:TieredStopAtLevel=1}, {@code -Xshare:on} with the
 *       runtime's own CDS archive (not reproducible here: the JDK's default archive is used). The
 *       runtime's total memory is the memory size: {@code -XX:MaxRAM}.
 * </ul>
 */
public record LambdaShare(int memoryMb) {
  /**
   * Each function's MemorySize in template.yaml (checked against it by a test), chosen with {@code
   * bench tune} (docs/benchmarks-history.md): the default {@code --memory} of its benchmarks.
   */
  public static final Map<String, Integer> TEMPLATE_MEMORY_MB =
      Map.of(
          "interruption-drain", 3008,
          "disruption-schedule", 3008,
          "capacity-preflight", 2560,
          "cost-report", 2560);

  static final int MB_PER_VCPU = 1769;
  static final long PERIOD_US = 100_000;
  public static final int MIN_MB = 128;
  public static final int MAX_MB = 10_240;

  /**
   * x86_64 duration price in us-east-1, first tier (up to 6 billion GB-seconds a month), and the
   * request charge: aws.amazon.com/lambda/pricing, read 2026-12-01 (unchanged since the 1 ms
   * billing of December 2020). Duration is billed rounded up to the next millisecond; GB = MB /
   * 1024.
   */
  public static final BigDecimal USD_PER_GB_SECOND = new BigDecimal("0.0000166667");

  public static final BigDecimal USD_PER_REQUEST = new BigDecimal("0.0000002");
  public static final String PRICE_SOURCE =
      "aws.amazon.com/lambda/pricing, x86_64 us-east-1, first tier, read 2026-12-01";

  public LambdaShare {
    if (memoryMb < MIN_MB || memoryMb > MAX_MB) {
      throw new ConfigException(
          "--memory " + memoryMb + ": Lambda memory sizes are " + MIN_MB + " to " + MAX_MB + " MB");
    }
  }

  /** The share of one CPU (1.0 at 1,769 MB). */
  public double cpus() {
    return memoryMb / (double) MB_PER_VCPU;
  }

  /** CFS quota per {@link #PERIOD_US}, in microseconds, rounded to the nearest microsecond. */
  long quotaUs() {
    return Math.round(memoryMb * (double) PERIOD_US / MB_PER_VCPU);
  }

  /** How many CPUs a Lambda environment of this size shows (nproc, availableProcessors). */
  int visibleCpus() {
    if (memoryMb <= 3008) {
      return 2;
    }
    return Math.max(3, (int) Math.ceil(memoryMb / (double) MB_PER_VCPU));
  }

  /** -XX:MaxHeapSize in KiB: 85 % of the memory size (512 MB gives 445645k, as in Lambda). */
  long maxHeapKib() {
    return Math.round(memoryMb * 1024 * 0.85);
  }

  /**
   * The JVM flags of a Lambda java21 environment of this size running this project's functions: the
   * runtime's own, then what template.yaml adds in JAVA_TOOL_OPTIONS (TemplateJvmFlagsTest).
   */
  List<String> jvmFlags() {
    return List.of(
        "-XX:MaxHeapSize=" + maxHeapKib() + "k",
        "-XX:MaxRAM=" + memoryMb + "m",
        "-XX:ActiveProcessorCount=" + visibleCpus(),
        "-XX:+UseSerialGC",
        "-XX:+TieredCompilation",
        "-XX:TieredStopAtLevel=1",
        "-Djava.net.preferIPv4Stack=true",
        // template.yaml's JAVA_TOOL_OPTIONS beyond the runtime's own (Lambda applies both)
        "-Xmn96m",
        "-XX:MetaspaceSize=64m");
  }

  /** What one invocation of {@code durationMs} costs: duration (rounded up to 1 ms) + request. */
  public BigDecimal usdPerInvocation(double durationMs) {
    long billedMs = (long) Math.ceil(durationMs);
    BigDecimal gbSeconds =
        BigDecimal.valueOf(memoryMb)
            .multiply(BigDecimal.valueOf(billedMs))
            .divide(BigDecimal.valueOf(1024L * 1000L), 12, RoundingMode.HALF_UP);
    return gbSeconds.multiply(USD_PER_GB_SECOND).add(USD_PER_REQUEST);
  }
}

package io.gpufleet.sim.real;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One child process of the test cluster: its command line, a log file, and a stop that takes its
 * whole process tree down (SIGTERM, then SIGKILL after a grace period). Its pid is appended to the
 * cluster's pid file, which the watchdog reads if the JVM dies without stopping it.
 */
final class ManagedProcess {
  static final Duration STOP_GRACE = Duration.ofSeconds(10);

  final String name;
  final Path log;
  private final Process process;

  private ManagedProcess(String name, Path log, Process process) {
    this.name = name;
    this.log = log;
    this.process = process;
  }

  static ManagedProcess start(
      String name, List<String> command, Path workDir, Map<String, String> env, Path pidFile) {
    Path log = workDir.resolve(name + ".log");
    var builder =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
    builder.environment().putAll(env);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new IllegalStateException("could not start " + name + " (" + command.get(0) + ")", e);
    }
    try {
      Files.writeString(
          pidFile,
          process.pid() + "\n",
          StandardCharsets.US_ASCII,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      stop(process);
      throw new IllegalStateException("cannot record the pid of " + name + " in " + pidFile, e);
    }
    return new ManagedProcess(name, log, process);
  }

  private static java.io.File nullDevice() {
    return new java.io.File("/dev/null");
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** Waits up to {@code wait} for the process to exit; true if it has. */
  boolean awaitExit(Duration wait) {
    return exitedWithin(process, wait);
  }

  int exitValue() {
    return process.exitValue();
  }

  /** Stops the process and everything it started; idempotent. */
  void stop() {
    stop(process);
  }

  static void stop(Process process) {
    List<ProcessHandle> children = process.descendants().toList();
    children.forEach(ProcessHandle::destroy);
    process.destroy();
    if (!exitedWithin(process, STOP_GRACE)) {
      process.destroyForcibly();
      exitedWithin(process, STOP_GRACE);
    }
    children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }

  static boolean exitedWithin(Process process, Duration wait) {
    try {
      process.onExit().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return !process.isAlive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }

  /** The last lines of the log, for error messages. */
  String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | java.io.UncheckedIOException e) {
      return "(log " + log + " unreadable: " + e.getMessage() + ")";
    }
  }

  boolean logContains(String text) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8).contains(text);
    } catch (IOException | java.io.UncheckedIOException e) {
      return false;
    }
  }
}

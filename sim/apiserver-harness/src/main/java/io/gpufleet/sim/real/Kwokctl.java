package io.gpufleet.sim.real;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One cluster of {@code kwokctl --runtime binary}: its name, its kwokctl working directory ({@code
 * KWOK_WORKDIR}, also {@code HOME}, so neither {@code ~/.kwok} nor {@code ~/.kube/config} is
 * touched) and the commands that create and delete it. kwokctl generates the PKI, picks nothing
 * itself (every port and binary is given) and runs the components as detached processes whose pids
 * it records under {@code clusters/<name>/pids}.
 *
 * <p>kwokctl is never allowed to download: every binary is passed as a local path, {@code PATH}
 * starts with the binary directory (kwokctl calls the first {@code kubectl} on it) and the proxy
 * variables point at a closed loopback port, so a download attempt fails within seconds (kwokctl
 * retries a few times) and says what it wanted. Loopback traffic, the only traffic of the cluster,
 * never goes through a proxy.
 */
final class Kwokctl {
  private static final Duration DELETE_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration EXIT_GRACE = Duration.ofSeconds(10);
  private static final String NO_NETWORK = "http://127.0.0.1:9";

  final String name;
  final Path workDir;
  private final K8sBinaries bin;

  Kwokctl(K8sBinaries bin, Path workDir, String name) {
    this.bin = bin;
    this.workDir = workDir;
    this.name = name;
  }

  /** {@code clusters/<name>}: kubeconfig.yaml, pki/, logs/, pids/, etcd/. */
  Path clusterDir() {
    return workDir.resolve("clusters").resolve(name);
  }

  Path kubeconfig() {
    return clusterDir().resolve("kubeconfig.yaml");
  }

  Path caCert() {
    return clusterDir().resolve("pki/ca.crt");
  }

  /** The certificate kwokctl serves the API server with (SANs 127.0.0.1, localhost). */
  Path servingCert() {
    return clusterDir().resolve("pki/admin.crt");
  }

  Path servingKey() {
    return clusterDir().resolve("pki/admin.key");
  }

  /** A component's log (etcd, kube-apiserver, kube-controller-manager, ..., kwok-controller). */
  Path log(String component) {
    return clusterDir().resolve("logs").resolve(component + ".log");
  }

  Path auditLog() {
    return log("audit");
  }

  /** The pid of every component kwokctl started, by component name. */
  Map<String, Long> pids() {
    Path dir = clusterDir().resolve("pids");
    var out = new LinkedHashMap<String, Long>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        String file = f.getFileName().toString();
        if (file.endsWith(".pid")) {
          out.put(
              file.substring(0, file.length() - 4),
              Long.parseLong(Files.readString(f, StandardCharsets.US_ASCII).trim()));
        }
      }
    } catch (IOException | NumberFormatException e) {
      throw new IllegalStateException("cannot read kwokctl's pid files in " + dir, e);
    }
    return out;
  }

  /**
   * Runs {@code kwokctl create cluster --runtime binary} with {@code config} (a kwokctl config
   * file: ports, extra arguments) and the stages file, every binary given explicitly; fails with
   * kwokctl's output if it does not succeed within {@code timeout}.
   */
  void create(Path config, Path auditPolicy, Duration timeout) {
    run(
        List.of(
            "--config=" + config,
            "--config=" + bin.kwokStages(),
            "create",
            "cluster",
            "--runtime=binary",
            "--etcd-binary=" + bin.etcd(),
            "--kube-apiserver-binary=" + bin.apiServer(),
            "--kube-controller-manager-binary=" + bin.controllerManager(),
            "--kube-scheduler-binary=" + bin.scheduler(),
            "--kwok-controller-binary=" + bin.kwok(),
            "--kube-authorization=true",
            "--kube-admission=true",
            "--kube-audit-policy=" + auditPolicy,
            // kwokctl's default multiplies lease and heartbeat durations by 5
            "--heartbeat-factor=1",
            "--node-lease-duration-seconds=40",
            "--kubeconfig=",
            "--timeout=" + timeout.toSeconds() + "s"),
        timeout.plus(EXIT_GRACE));
  }

  /**
   * {@code kwokctl delete cluster}: it SIGKILLs every recorded component and removes {@code
   * clusters/<name>}.
   */
  void delete() {
    end("delete");
  }

  /**
   * {@code kwokctl stop cluster}: stops the components and keeps the files (for a kept cluster).
   */
  void stop() {
    end("stop");
  }

  /**
   * Runs {@code kwokctl <verb> cluster}, then waits until the processes it recorded are gone
   * (kwokctl does not wait for processes that are not its children).
   */
  private void end(String verb) {
    var pids = pids();
    try {
      run(List.of(verb, "cluster"), DELETE_TIMEOUT);
    } finally {
      killAndAwait(pids.values());
    }
  }

  /** Whatever kwokctl left running (it should leave nothing) is killed; waits for every pid. */
  private static void killAndAwait(java.util.Collection<Long> pids) {
    for (long pid : pids) {
      ProcessHandle.of(pid)
          .ifPresent(
              p -> {
                if (!awaitExit(p, EXIT_GRACE)) {
                  p.destroyForcibly();
                  awaitExit(p, EXIT_GRACE);
                }
              });
    }
  }

  /** Waits up to {@code wait} for the process to end; whether it has. */
  static boolean awaitExit(ProcessHandle p, Duration wait) {
    try {
      p.onExit().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      return !p.isAlive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !p.isAlive();
    }
  }

  /**
   * A shell that outlives a JVM killed without running its shutdown hooks (SIGKILL, crash), then
   * deletes the cluster with kwokctl and removes the working directory (unless kept). Destroyed on
   * a normal stop.
   */
  Process watchdog(boolean keep) {
    var builder =
        new ProcessBuilder(
                "/bin/sh",
                "-c",
                "while kill -0 \"$1\" 2>/dev/null; do sleep 1; done;"
                    + " \"$2\" --name=\"$3\" delete cluster >/dev/null 2>&1;"
                    + " if [ -n \"$4\" ]; then rm -rf \"$4\"; fi",
                "gpufleet-k8s-watchdog",
                Long.toString(ProcessHandle.current().pid()),
                bin.kwokctl().toString(),
                name,
                keep ? "" : workDir.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    environment(builder.environment());
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the test cluster's watchdog", e);
    }
  }

  /**
   * kwokctl's environment: this cluster's working directory, the binary directory first on PATH, no
   * proxy reachable, and none of the caller's KWOK_* settings.
   */
  private void environment(Map<String, String> env) {
    env.keySet().removeIf(k -> k.startsWith("KWOK_"));
    env.put("KWOK_WORKDIR", workDir.toString());
    env.put("HOME", workDir.toString());
    env.put("PATH", bin.dir() + ":/usr/bin:/bin");
    for (String proxy : List.of("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")) {
      env.put(proxy, NO_NETWORK);
    }
    env.put("NO_PROXY", "127.0.0.1,localhost");
    env.put("no_proxy", "127.0.0.1,localhost");
  }

  private void run(List<String> args, Duration timeout) {
    var command = new ArrayList<String>();
    command.add(bin.kwokctl().toString());
    command.add("--name=" + name);
    command.addAll(args);
    Path out = workDir.resolve("kwokctl.log");
    var builder =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    environment(builder.environment());
    try {
      Process process = builder.start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command)
                + " took longer than "
                + timeout.toSeconds()
                + " s"
                + tail(out));
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " failed with exit code "
                + process.exitValue()
                + tail(out));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command.get(0), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
    }
  }

  /** The last lines of a log, for error messages. */
  static String tail(Path log) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return " ("
          + log
          + "):\n"
          + String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return " (log " + log + " unreadable: " + e.getMessage() + ")";
    }
  }
}

package io.gpufleet.sim.real;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the binaries of the real API server tier are: the directory named by the system property
 * {@code gpufleet.k8s.bin} or the environment variable {@code GPUFLEET_K8S_BIN}, else the one
 * {@code scripts/k8s-bins.sh} (found from the working directory upwards) prints, building them
 * first when its cache is cold.
 */
public record K8sBinaries(Path dir) {
  public static final String PROPERTY = "gpufleet.k8s.bin";
  public static final String ENV = "GPUFLEET_K8S_BIN";
  public static final Path SCRIPT = Path.of("scripts", "k8s-bins.sh");
  static final String KWOK_STAGES = "kwok-stages.yaml";
  static final List<String> NAMES =
      List.of(
          "etcd",
          "kube-apiserver",
          "kube-controller-manager",
          "kube-scheduler",
          "kubectl",
          "kwok",
          "kwokctl");

  public Path etcd() {
    return dir.resolve("etcd");
  }

  public Path apiServer() {
    return dir.resolve("kube-apiserver");
  }

  public Path controllerManager() {
    return dir.resolve("kube-controller-manager");
  }

  public Path scheduler() {
    return dir.resolve("kube-scheduler");
  }

  public Path kwok() {
    return dir.resolve("kwok");
  }

  /** Runs the cluster ({@code kwokctl create cluster --runtime binary}, given the others). */
  public Path kwokctl() {
    return dir.resolve("kwokctl");
  }

  /** The kubectl kwokctl calls to see the API server answer. */
  public Path kubectl() {
    return dir.resolve("kubectl");
  }

  /** The node and pod lifecycle stages kwok runs (written by the build script). */
  public Path kwokStages() {
    return dir.resolve(KWOK_STAGES);
  }

  /** Resolves the directory as described above; every failure says what to do. */
  public static K8sBinaries locate() {
    return locate(System.getProperty(PROPERTY), System.getenv(ENV), Path.of(""));
  }

  /** The same, looking for the build script from {@code directory} upwards. */
  public static K8sBinaries locate(Path directory) {
    return locate(System.getProperty(PROPERTY), System.getenv(ENV), directory);
  }

  static K8sBinaries locate(String property, String env, Path workingDirectory) {
    for (var given : new String[] {property, env}) {
      if (given != null && !given.isBlank()) {
        String source = given == property ? "-D" + PROPERTY : "$" + ENV;
        return verified(Path.of(given.trim()), source);
      }
    }
    var looked = new ArrayList<String>();
    for (Path dir = workingDirectory.toAbsolutePath().normalize();
        dir != null;
        dir = dir.getParent()) {
      Path script = dir.resolve(SCRIPT);
      looked.add(script.toString());
      if (Files.isRegularFile(script)) {
        return verified(build(script), script.toString());
      }
    }
    throw new IllegalStateException(
        "The real API server tier needs etcd, kube-apiserver, kube-controller-manager,"
            + " kube-scheduler, kubectl, kwok and kwokctl: set -D"
            + PROPERTY
            + " or $"
            + ENV
            + " to their directory, or run from the repository so "
            + SCRIPT
            + " can build them (looked at "
            + String.join(", ", looked)
            + ")");
  }

  private static K8sBinaries verified(Path dir, String source) {
    List<String> missing = NAMES.stream().filter(n -> !Files.isExecutable(dir.resolve(n))).toList();
    if (!Files.isRegularFile(dir.resolve(KWOK_STAGES))) {
      missing = new ArrayList<>(missing);
      missing.add(KWOK_STAGES);
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          source
              + " names "
              + dir
              + ", which lacks "
              + missing
              + " (build them with "
              + SCRIPT
              + ")");
    }
    return new K8sBinaries(dir);
  }

  /** Runs the build script (a no-op when its cache is warm); its progress goes to stderr. */
  private static Path build(Path script) {
    try {
      Path out = Files.createTempFile("gpufleet-k8s-bins", ".out");
      try {
        var process =
            new ProcessBuilder("bash", script.toString())
                .directory(script.getParent().getParent().toFile())
                .redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        int code = process.waitFor();
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        if (code != 0 || lines.isEmpty()) {
          throw new IllegalStateException(
              script + " failed with exit code " + code + " (its output is above)");
        }
        return Path.of(lines.get(lines.size() - 1).trim());
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not run " + script + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while building the Kubernetes binaries", e);
    }
  }
}

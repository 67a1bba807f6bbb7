package io.gpufleet.sim.real;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The published CustomResourceDefinitions the real API server tier installs (Karpenter's NodePool
 * and NodeClaim, KEDA's ScaledObject), pinned and taken from their Go modules by {@code
 * scripts/published-crds.sh}: the directory named by the system property {@code gpufleet.crds} or
 * the environment variable {@code GPUFLEET_CRDS}, else the one that script (found from the working
 * directory upwards) prints, fetching first when its cache is cold.
 */
public record PublishedCrds(Path dir) {
  public static final String PROPERTY = "gpufleet.crds";
  public static final String ENV = "GPUFLEET_CRDS";
  public static final Path SCRIPT = Path.of("scripts", "published-crds.sh");

  /** The CRD files, in the order they are installed. */
  public static final List<String> FILES =
      List.of(
          "karpenter.sh_nodepools.yaml",
          "karpenter.sh_nodeclaims.yaml",
          "keda.sh_scaledobjects.yaml");

  public List<Path> files() {
    return FILES.stream().map(dir::resolve).toList();
  }

  /** Module, version and file of each CRD ({@code versions.txt}), for reports. */
  public List<String> versions() {
    try {
      return Files.readAllLines(dir.resolve("versions.txt"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("no versions.txt in " + dir, e);
    }
  }

  public static PublishedCrds locate() {
    for (String given : new String[] {System.getProperty(PROPERTY), System.getenv(ENV)}) {
      if (given != null && !given.isBlank()) {
        return verified(Path.of(given.trim()));
      }
    }
    for (Path d = Path.of("").toAbsolutePath().normalize(); d != null; d = d.getParent()) {
      Path script = d.resolve(SCRIPT);
      if (Files.isRegularFile(script)) {
        return verified(fetch(script));
      }
    }
    throw new IllegalStateException(
        "The real API server tier needs Karpenter's and KEDA's published CRDs: set -D"
            + PROPERTY
            + " or $"
            + ENV
            + ", or run from the repository so "
            + SCRIPT
            + " can fetch them");
  }

  private static PublishedCrds verified(Path dir) {
    var missing = FILES.stream().filter(f -> !Files.isRegularFile(dir.resolve(f))).toList();
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          dir + " lacks " + missing + " (fetch them with " + SCRIPT + ")");
    }
    return new PublishedCrds(dir);
  }

  private static Path fetch(Path script) {
    try {
      var process =
          new ProcessBuilder("bash", script.toString())
              .directory(script.getParent().getParent().toFile())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      List<String> lines;
      try (var out = process.getInputStream()) {
        lines = new String(out.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      }
      int code = process.waitFor();
      if (code != 0 || lines.isEmpty()) {
        throw new IllegalStateException(script + " failed with exit code " + code);
      }
      return Path.of(lines.get(lines.size() - 1).trim());
    } catch (IOException e) {
      throw new IllegalStateException("could not run " + script + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while fetching the published CRDs", e);
    }
  }
}

package io.gpufleet.sim.real;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The Kubernetes manifests the project ships in {@code deploy/}: RBAC and admission policies. */
public final class Manifests {
  public static final Path RBAC = Path.of("deploy", "rbac");
  public static final Path ADMISSION = Path.of("deploy", "admission");

  private Manifests() {}

  /**
   * The repository root: the working directory or the nearest parent holding {@code deploy/rbac}.
   */
  public static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve(RBAC))) {
        return d;
      }
    }
    throw new IllegalStateException("no " + RBAC + " in " + dir + " or any parent directory");
  }

  /** Every {@code *.yaml} of deploy/rbac, then of deploy/admission, by name. */
  public static List<Path> all(Path root) {
    var out = new ArrayList<Path>();
    out.addAll(yaml(root.resolve(RBAC)));
    out.addAll(yaml(root.resolve(ADMISSION)));
    return out;
  }

  /** The RBAC files of one function: {@code <function>.yaml} and {@code <function>-*.yaml}. */
  public static List<Path> rbacOf(Path root, String function) {
    return yaml(root.resolve(RBAC)).stream()
        .filter(
            p -> {
              String n = p.getFileName().toString();
              return n.equals(function + ".yaml") || n.startsWith(function + "-");
            })
        .toList();
  }

  static List<Path> yaml(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }
}

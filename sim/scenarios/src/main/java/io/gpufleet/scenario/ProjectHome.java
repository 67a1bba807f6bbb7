package io.gpufleet.scenario;

import java.nio.file.Files;
import java.nio.file.Path;

/** The project's root folder, where events/, deploy/ and the built artifacts are. */
public final class ProjectHome {
  /** The system property the {@code gpufleet} launcher sets to the project's root. */
  public static final String PROPERTY = "gpufleet.home";

  private ProjectHome() {}

  /** The root the launcher named, else the working directory. */
  public static Path path() {
    return Path.of(System.getProperty(PROPERTY, "."));
  }

  /** The nearest folder holding template.yaml at or above {@code from}. */
  public static Path findRoot(Path from) {
    for (Path dir = from.toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("template.yaml"))) {
        return dir;
      }
    }
    throw new IllegalStateException("template.yaml not found above " + from.toAbsolutePath());
  }
}

package io.gpufleet.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the catalog generator against the pinned moto dump and fails when its output differs from
 * the committed {@code CatalogData.java} (someone edited the table by hand, changed a generator
 * input without regenerating, or bumped moto). It needs the test venv's Python (where the pinned
 * moto lives): the one beside {@code $MOTO_SERVER}, as {@code ./gpufleet test} exports it, else the
 * nearest {@code .venv} above the working directory.
 */
class CatalogGeneratorTest {

  @Test
  void shouldMatchWhatTheGeneratorMakesFromThePinnedDump() throws Exception {
    Path root = repoRoot();
    Path python = python(root);
    var p =
        new ProcessBuilder(
                python.toString(),
                root.resolve("scripts/catalog/generate_instance_catalog.py").toString(),
                "--check")
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("generator finished").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("CatalogData.java is current");
  }

  private static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null
        && !Files.exists(dir.resolve("scripts/catalog/generate_instance_catalog.py"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("repository root above " + Path.of("").toAbsolutePath()).isNotNull();
    return dir;
  }

  private static Path python(Path root) throws IOException {
    String moto = System.getenv("MOTO_SERVER");
    if (moto != null && !moto.isBlank()) {
      Path py = Path.of(moto).toAbsolutePath().getParent().resolve("python");
      assertThat(py).as("the venv Python beside $MOTO_SERVER").isExecutable();
      return py;
    }
    Path py = root.resolve(".venv/bin/python");
    assumeTrue(
        Files.isExecutable(py),
        "no test venv: run ./gpufleet test (or export MOTO_SERVER=<venv>/bin/moto_server)");
    return py;
  }
}

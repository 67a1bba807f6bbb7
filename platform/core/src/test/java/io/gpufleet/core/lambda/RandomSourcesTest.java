package io.gpufleet.core.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No main source of any module draws from a generator a SnapStart snapshot would copy into every
 * restored environment: jitter and backoff come from {@link RestoreSafeRandom} only.
 */
class RandomSourcesTest {
  /** What a snapshot copies: generators whose state is in memory from INIT on. */
  static final Pattern FORBIDDEN =
      Pattern.compile(
          "ThreadLocalRandom|new\\s+(java\\.util\\.)?Random\\s*\\(|Math\\.random\\s*\\("
              + "|new\\s+SplittableRandom\\s*\\(|RandomGenerator\\.(getDefault|of)\\s*\\("
              + "|new\\s+SecureRandom\\s*\\(|SecureRandom\\.getInstance");

  /**
   * The few uses that are not jitter, each with why: the restore-safe source itself, and the
   * benchmark's fleet, seeded so that every run builds the same fleet.
   */
  static final Map<String, String> ALLOWED =
      Map.of(
          "platform/core/src/main/java/io/gpufleet/core/lambda/RestoreSafeRandom.java",
          "creates the generator after each restore",
          "tools/bench/src/main/java/io/gpufleet/bench/CostBench.java",
          "new Random(seed): the same synthetic fleet on every run, by design");

  static Path root() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null
        && !(Files.isDirectory(p.resolve("functions")) && Files.exists(p.resolve("pom.xml")))) {
      p = p.getParent();
    }
    assertThat(p).as("repository root above " + Path.of("").toAbsolutePath()).isNotNull();
    return p;
  }

  static List<Path> mainSources(Path root) throws IOException {
    var out = new ArrayList<Path>();
    try (Stream<Path> all = Files.walk(root, 12)) {
      all.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> root.relativize(p).toString().contains("src/main/java/"))
          .filter(p -> !root.relativize(p).toString().contains("/target/"))
          .filter(p -> !root.relativize(p).startsWith(".git"))
          .forEach(out::add);
    }
    return out;
  }

  @Test
  void shouldDrawJitterOnlyFromTheRestoreSafeSource() throws IOException {
    Path root = root();
    var sources = mainSources(root);
    // the scan sees every module: the drain, the AWS adapters, the benchmark lab
    assertThat(sources)
        .extracting(p -> root.relativize(p).toString())
        .contains(
            "functions/interruption-drain/src/main/java/io/gpufleet/drain/Drainer.java",
            "platform/adapters/aws/src/main/java/io/gpufleet/core/aws/AwsRetry.java",
            "tools/bench/src/main/java/io/gpufleet/bench/AwsHosts.java");

    var found = new ArrayList<String>();
    for (Path p : sources) {
      String rel = root.relativize(p).toString();
      if (ALLOWED.containsKey(rel)) {
        continue;
      }
      var lines = Files.readAllLines(p);
      for (int i = 0; i < lines.size(); i++) {
        if (FORBIDDEN.matcher(lines.get(i)).find()) {
          found.add(rel + ":" + (i + 1) + ": " + lines.get(i).strip());
        }
      }
    }
    assertThat(found)
        .as("use io.gpufleet.core.lambda.RestoreSafeRandom (a snapshot copies these generators)")
        .isEmpty();
  }

  @Test
  void shouldRecogniseEveryForbiddenSource() {
    for (String line :
        List.of(
            "ThreadLocalRandom.current().nextLong(5)",
            "var r = new Random(42);",
            "double d = Math.random();",
            "new SplittableRandom()",
            "RandomGenerator.getDefault().nextInt()",
            "new SecureRandom()",
            "SecureRandom.getInstance(\"DRBG\")")) {
      assertThat(FORBIDDEN.matcher(line).find()).as(line).isTrue();
    }
    assertThat(FORBIDDEN.matcher("RestoreSafeRandom.nextLong(5)").find()).isFalse();
  }
}

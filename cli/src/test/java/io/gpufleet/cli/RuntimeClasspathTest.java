package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The CLI ships its runtime class path (target/lib, what the gpufleet launcher runs with): test
 * libraries belong to the testkit, which every module takes in test scope only. The class path is
 * the one Maven resolves for the runtime scope, written by the dependency plugin's build-classpath
 * goal before the tests run (cli/pom.xml, execution runtime-classpath).
 */
class RuntimeClasspathTest {

  /** Jar (or reactor module) names of test libraries and what only they bring in. */
  private static final Pattern TEST_LIBRARY =
      Pattern.compile(
          "^(junit-|opentest4j-|apiguardian-|testcontainers-|localstack-|docker-java-|"
              + "assertj-|hamcrest-|mockito-|byte-buddy-|duct-tape-|testkit-|"
              + "aws-lambda-java-tests-).*");

  private static List<String> runtimeJars() throws Exception {
    Path file = Path.of("target", "runtime-classpath.txt");
    assertThat(file)
        .as("written by the dependency plugin (execution runtime-classpath) before the tests")
        .exists();
    return Arrays.stream(Files.readString(file).trim().split(Pattern.quote(File.pathSeparator)))
        .filter(entry -> !entry.isBlank())
        .map(RuntimeClasspathTest::name)
        .toList();
  }

  /** A jar's file name; a reactor module built in the same run is its target/classes folder. */
  private static String name(String entry) {
    Path path = Path.of(entry);
    if (path.endsWith(Path.of("target", "classes"))) {
      return path.getParent().getParent().getFileName() + "-classes";
    }
    return path.getFileName().toString();
  }

  @Test
  void shouldShipNoTestLibraryOnTheCliRuntimeClassPath() throws Exception {
    List<String> jars = runtimeJars();

    assertThat(jars).as("the CLI's runtime class path").isNotEmpty();
    assertThat(jars)
        .as("test libraries on the CLI's runtime class path")
        .filteredOn(name -> TEST_LIBRARY.matcher(name).matches())
        .isEmpty();
  }

  @Test
  void shouldStillShipTheSimulatorAndTheRealServerHarnessTheBenchesUse() throws Exception {
    List<String> jars = runtimeJars();

    assertThat(jars)
        .anyMatch(name -> name.startsWith("fleet-sim-"))
        .anyMatch(name -> name.startsWith("apiserver-harness-"));
  }

  @Test
  void shouldRecogniseTheTestLibrariesItGuardsAgainst() {
    assertThat(
            List.of(
                "junit-jupiter-api-5.13.4.jar",
                "testcontainers-1.21.4.jar",
                "localstack-1.21.4.jar",
                "docker-java-api-3.4.2.jar",
                "testkit-0.1.0-SNAPSHOT.jar",
                "testkit-classes"))
        .allMatch(name -> TEST_LIBRARY.matcher(name).matches());
    assertThat(List.of("fleet-sim-0.1.0-SNAPSHOT.jar", "jackson-databind-2.22.0.jar"))
        .noneMatch(name -> TEST_LIBRARY.matcher(name).matches());
  }
}

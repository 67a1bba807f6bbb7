package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.lambda.SnapshotRestoreProbe;
import io.gpufleet.testkit.lambda.RuntimeTier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two restores of one snapshot draw different jitter, held to the real runtime interface client's
 * CRaC hooks and the drain's deployment jar.
 *
 * <p>The runtime tier cannot copy a JVM's memory: the emulator runs one JVM per environment, and
 * neither its JDK nor this machine can checkpoint one (no CRaC build, no CRIU). So the snapshot is
 * emulated on the state that matters: the jitter generator, taken after beforeCheckpoint and put
 * back before each restore (the generator is deterministic once seeded, so its serialized copy
 * continues exactly as a memory copy would). Without the afterRestore hooks the two restores draw
 * the same sequence, which shows the emulation would catch a source seeded at INIT.
 */
class SnapshotRestoreRandomnessIT {
  @Test
  void shouldDrawDifferentJitterInTwoEnvironmentsRestoredFromOneSnapshot() throws Exception {
    var cp = new ArrayList<String>();
    RuntimeTier.runtimeLib().forEach(p -> cp.add(p.toString()));
    cp.add(
        RuntimeTier.lambdaJar(RuntimeTier.repositoryRoot().resolve("functions/interruption-drain"))
            .toString());
    cp.add(
        Path.of(
                SnapshotRestoreProbe.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI())
            .toString());
    var process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dorg.crac.Core.Compat=com.amazonaws.services.lambda.crac",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                String.join(":", cp),
                SnapshotRestoreProbe.class.getName())
            .redirectErrorStream(true)
            .start();

    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(process.exitValue()).as(out).isZero();
    Map<String, String> drawn = new LinkedHashMap<>();
    out.lines()
        .filter(l -> l.matches("(restored|unhooked)-\\d=\\[.*\\]"))
        .forEach(l -> drawn.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
    assertThat(drawn).containsOnlyKeys("restored-1", "restored-2", "unhooked-1", "unhooked-2");
    assertThat(out).contains("snapstart beforeCheckpoint", "snapstart afterRestore");
    // Then the two restored environments retry on their own schedules
    assertThat(drawn.get("restored-1")).isNotEqualTo(drawn.get("restored-2"));
    // and without the hooks they would have retried in lockstep
    assertThat(drawn.get("unhooked-1")).isEqualTo(drawn.get("unhooked-2"));
  }
}

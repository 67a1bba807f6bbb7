package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import org.junit.jupiter.api.Test;

/** A bench child runs the function's code without the class-path jars no function jar carries. */
class ChildClassPathTest {
  @Test
  void shouldDropBouncyCastleAndKeepEverythingElse() {
    String cp =
        String.join(
            File.pathSeparator,
            "/p/cli/target/gpufleet-cli.jar",
            "/p/cli/target/lib/bcprov-jdk18on-1.85.jar",
            "/p/cli/target/lib/fabric8-kubernetes-client-7.9.0.jar",
            "/p/cli/target/lib/bcpkix-jdk18on-1.85.jar",
            "/p/cli/target/lib/bcutil-jdk18on-1.85.jar",
            "/p/cli/target/lib/abcprov-notbc-1.0.jar");

    assertThat(Confinement.childClassPath(cp).split(File.pathSeparator))
        .containsExactly(
            "/p/cli/target/gpufleet-cli.jar",
            "/p/cli/target/lib/fabric8-kubernetes-client-7.9.0.jar",
            "/p/cli/target/lib/abcprov-notbc-1.0.jar");
  }
}

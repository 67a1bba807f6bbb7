package io.gpufleet.sim.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class K8sBinariesTest {
  @TempDir Path dir;

  @Test
  void shouldUseTheDirectoryGivenByThePropertyBeforeTheEnvironment() throws Exception {
    for (String name : K8sBinaries.NAMES) {
      Path file = Files.createFile(dir.resolve(name));
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.writeString(dir.resolve(K8sBinaries.KWOK_STAGES), "kind: Stage\n");

    var found = K8sBinaries.locate(dir.toString(), "/nonexistent", Path.of("/"));

    assertThat(found.apiServer()).isEqualTo(dir.resolve("kube-apiserver"));
    assertThat(found.kwokStages()).isEqualTo(dir.resolve("kwok-stages.yaml"));
  }

  @Test
  void shouldNameWhatIsMissingFromAGivenDirectory() throws Exception {
    Path etcd = Files.createFile(dir.resolve("etcd"));
    Files.setPosixFilePermissions(etcd, PosixFilePermissions.fromString("rwxr-xr-x"));

    assertThatThrownBy(() -> K8sBinaries.locate(null, dir.toString(), Path.of("/")))
        .hasMessageContaining("$" + K8sBinaries.ENV)
        .hasMessageContaining("kube-apiserver")
        .hasMessageContaining("kwok-stages.yaml")
        .hasMessageNotContaining("[etcd");
  }

  @Test
  void shouldSayHowToGetTheBinariesWhenNothingLeadsToThem() {
    assertThatThrownBy(() -> K8sBinaries.locate(null, " ", dir))
        .hasMessageContaining("-D" + K8sBinaries.PROPERTY)
        .hasMessageContaining(dir.resolve(K8sBinaries.SCRIPT).toString());
  }
}

package io.gpufleet.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryBlobStoreTest {
  @TempDir Path dir;

  @Test
  void shouldWriteUnderTheKeyAndReadItBack() throws Exception {
    var store = new DirectoryBlobStore(dir);

    store.put("reports/c/w/cost.json", "{}".getBytes(StandardCharsets.UTF_8), "application/json");
    store.put(
        "reports/c/w/cost.json", "{\"v\":2}".getBytes(StandardCharsets.UTF_8), "application/json");

    assertThat(Files.readString(dir.resolve("reports/c/w/cost.json"))).isEqualTo("{\"v\":2}");
    assertThat(store.get("reports/c/w/cost.json")).isPresent();
    assertThat(store.get("reports/c/w/missing.json")).isEmpty();
    assertThat(store.locate("a/b")).isEqualTo(dir.toAbsolutePath().resolve("a/b").toString());
    try (var files = Files.list(dir.resolve("reports/c/w"))) {
      assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly("cost.json");
    }
  }

  @Test
  void shouldRefuseKeysThatLeaveTheDirectory() {
    var store = new DirectoryBlobStore(dir);

    assertThatThrownBy(() -> store.put("../escape.json", new byte[0], "application/json"))
        .hasMessageContaining("leaves");
  }
}

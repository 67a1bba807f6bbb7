package io.gpufleet.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.logging.log4j.core.config.plugins.processor.PluginCache;
import org.apache.logging.log4j.core.config.plugins.processor.PluginEntry;
import org.junit.jupiter.api.Test;

/**
 * The Lambda jars ship a trimmed log4j plugin cache instead of the merged caches of log4j-core, the
 * JSON template layout and Powertools. log4j loads the class of every plugin listed in its cache at
 * start-up (Kafka, JDBC, rolling-file appenders ...): about 300 classes a cold start pays for and
 * never uses. The trimmed cache keeps what the functions' {@code log4j2.properties} needs.
 *
 * <p>This test rebuilds the trimmed cache from the caches on the classpath and compares it with the
 * committed one, so a dependency upgrade that changes a plugin fails here rather than silently in
 * Lambda. To regenerate: {@code mvn -pl functions/fleet-core test -Dtest=TrimmedPluginCacheTest
 * -Dgpufleet.regenerate=true}.
 */
class TrimmedPluginCacheTest {
  static final String CACHE =
      "META-INF/org/apache/logging/log4j/core/config/plugins/Log4j2Plugins.dat";
  static final Path COMMITTED = Path.of("src/main/resources").resolve(CACHE);

  /** Category → plugin keys kept; a category mapped to an empty set keeps all its plugins. */
  static final Map<String, Set<String>> KEEP =
      Map.of(
          "configurationfactory", Set.of("propertiesconfigurationfactory"),
          "core",
              Set.of(
                  "appenders",
                  "appenderref",
                  "appender-ref",
                  "console",
                  "jsontemplatelayout",
                  "eventtemplateadditionalfield",
                  "loggers",
                  "logger",
                  "root",
                  "properties",
                  "property"),
          "lookup", Set.of("env", "sys"),
          "typeconverter", Set.of(),
          "jsontemplateresolverfactory", Set.of(),
          "jsontemplateresolverinterceptor", Set.of());

  @Test
  void shouldShipTheTrimmedPluginCacheBuiltFromTheDependencies() throws IOException {
    byte[] expected = trimmed();
    if (Boolean.getBoolean("gpufleet.regenerate")) {
      Files.createDirectories(COMMITTED.getParent());
      Files.write(COMMITTED, expected);
    }
    assertThat(Files.readAllBytes(COMMITTED))
        .as("committed %s is stale: regenerate it (see the class comment)", COMMITTED)
        .isEqualTo(expected);
  }

  @Test
  void shouldKeepEveryPluginTheFunctionsConfigurationUses() throws IOException {
    var cache = new PluginCache();
    cache.loadCacheFiles(Collections.enumeration(List.of(COMMITTED.toUri().toURL())));
    assertThat(cache.getAllCategories().keySet())
        .containsExactlyInAnyOrderElementsOf(KEEP.keySet());
    assertThat(cache.getCategory("core").keySet())
        .containsExactlyInAnyOrderElementsOf(KEEP.get("core"));
    assertThat(cache.getCategory("jsontemplateresolverfactory"))
        .containsKeys(
            "powertoolsresolverfactory", "timestampresolverfactory", "levelresolverfactory");
    assertThat(cache.getCategory("typeconverter")).containsKeys("level", "string", "boolean");
  }

  private static byte[] trimmed() throws IOException {
    var all = new PluginCache();
    var sources =
        Collections.list(TrimmedPluginCacheTest.class.getClassLoader().getResources(CACHE)).stream()
            .filter(url -> !isOurs(url))
            .toList();
    assertThat(sources).as("plugin caches of log4j-core, the layout and Powertools").hasSize(3);
    all.loadCacheFiles(Collections.enumeration(sources));

    var out = new PluginCache();
    // sorted, so the bytes do not depend on the class path order
    for (var category : new TreeMap<>(all.getAllCategories()).entrySet()) {
      var keep = KEEP.get(category.getKey());
      if (keep == null) {
        continue;
      }
      Map<String, PluginEntry> target = out.getCategory(category.getKey());
      for (var entry : new TreeMap<>(category.getValue()).entrySet()) {
        if (keep.isEmpty() || keep.contains(entry.getKey())) {
          target.put(entry.getKey(), entry.getValue());
        }
      }
    }
    var bytes = new ByteArrayOutputStream();
    out.writeCache(bytes);
    return bytes.toByteArray();
  }

  private static boolean isOurs(URL url) {
    return url.toString().contains("/fleet-core/target/classes/");
  }
}

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
  static final String TEMPLATE = "LambdaJsonLayout.json";
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
          // log4j loads every converter and resolver factory listed at start-up (~75 classes):
          // keep the converters of the attribute types the configuration's plugins declare (the
          // eight primitive wrappers must all be present: the registry aliases the primitive types
          // to them), and the resolvers LambdaJsonLayout.json names
          "typeconverter",
              Set.of(
                  "boolean",
                  "byte",
                  "character",
                  "double",
                  "float",
                  "integer",
                  "long",
                  "short",
                  "charset",
                  "level",
                  "string",
                  "recyclerfactoryconverter"),
          "jsontemplateresolverfactory",
              Set.of(
                  "levelresolverfactory",
                  "messageresolverfactory",
                  "exceptionresolverfactory",
                  "timestampresolverfactory",
                  "powertoolsresolverfactory"),
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

  @Test
  void shouldKeepTheResolverOfEveryFieldOfThePowertoolsTemplate() throws IOException {
    var names = new java.util.TreeSet<String>();
    try (var in = TrimmedPluginCacheTest.class.getClassLoader().getResourceAsStream(TEMPLATE)) {
      assertThat(in).as(TEMPLATE).isNotNull();
      new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(in)
          .findValues("$resolver")
          .forEach(n -> names.add(n.asText().toLowerCase(java.util.Locale.ROOT)));
    }
    assertThat(names).contains("powertools", "timestamp", "level", "message", "exception");
    for (String name : names) {
      assertThat(KEEP.get("jsontemplateresolverfactory")).contains(name + "resolverfactory");
    }
  }

  @Test
  void shouldKeepAConverterForEveryAttributeTypeOfTheKeptPlugins() throws Exception {
    var cache = new PluginCache();
    cache.loadCacheFiles(Collections.enumeration(List.of(COMMITTED.toUri().toURL())));
    var supported = new java.util.ArrayList<Class<?>>();
    for (PluginEntry e : cache.getCategory("typeconverter").values()) {
      for (var t : Class.forName(e.getClassName()).getGenericInterfaces()) {
        if (t instanceof java.lang.reflect.ParameterizedType p
            && p.getRawType()
                == org.apache.logging.log4j.core.config.plugins.convert.TypeConverter.class
            && p.getActualTypeArguments()[0] instanceof Class<?> c) {
          supported.add(c);
        }
      }
    }
    var types = new java.util.LinkedHashMap<String, Class<?>>();
    for (var category : List.of("core", "jsontemplateresolverfactory")) {
      for (PluginEntry e : cache.getCategory(category).values()) {
        attributeTypes(Class.forName(e.getClassName()), e.getKey(), types);
      }
    }
    assertThat(types).isNotEmpty();
    types.forEach(
        (where, type) -> {
          Class<?> boxed = box(type);
          boolean ok =
              boxed.isEnum() || supported.stream().anyMatch(c -> boxed.isAssignableFrom(c));
          assertThat(ok).as("no type converter kept for %s (%s)", where, type).isTrue();
        });
  }

  /**
   * The types of the plugin's attributes: factory-method parameters and builder fields (builders
   * reached through the builder factory method, and their superclasses).
   */
  private static void attributeTypes(Class<?> plugin, String key, Map<String, Class<?>> out) {
    var queue = new java.util.ArrayDeque<Class<?>>(List.of(plugin));
    var seen = new java.util.HashSet<Class<?>>();
    while (!queue.isEmpty()) {
      Class<?> c = queue.poll();
      if (c == null || c == Object.class || !seen.add(c)) {
        continue;
      }
      queue.add(c.getSuperclass());
      for (var m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(
            org.apache.logging.log4j.core.config.plugins.PluginBuilderFactory.class)) {
          queue.add(m.getReturnType());
        }
        if (m.isAnnotationPresent(
            org.apache.logging.log4j.core.config.plugins.PluginFactory.class)) {
          for (var p : m.getParameters()) {
            if (p.isAnnotationPresent(
                org.apache.logging.log4j.core.config.plugins.PluginAttribute.class)) {
              out.put(key + "." + p.getName(), p.getType());
            }
          }
        }
      }
      for (var f : c.getDeclaredFields()) {
        if (f.isAnnotationPresent(
            org.apache.logging.log4j.core.config.plugins.PluginBuilderAttribute.class)) {
          out.put(key + "." + c.getSimpleName() + "." + f.getName(), f.getType());
        }
      }
    }
  }

  private static Class<?> box(Class<?> t) {
    if (!t.isPrimitive()) {
      return t;
    }
    return java.lang.invoke.MethodType.methodType(t).wrap().returnType();
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

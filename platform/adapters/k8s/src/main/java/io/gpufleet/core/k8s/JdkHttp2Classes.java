package io.gpufleet.core.k8s;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads the JDK HTTP client's HTTP/2 classes (connection, streams, frames, HPACK) before a
 * SnapStart snapshot. The priming servers speak HTTP/1.1 (the JDK has no HTTP/2 server), so the
 * client falls back there, while EKS's API server negotiates {@code h2}: without this, the first
 * event after a restore loads a few hundred classes on its way to the first request. The names are
 * read from the running JDK's own module image, so they are those of the JDK that runs (loading
 * does not reach into the module: no access is needed to load a class).
 */
public final class JdkHttp2Classes {
  private static final String ROOT = "/modules/java.net.http/jdk/internal/net/http";

  private JdkHttp2Classes() {}

  /** Loads and initialises them; returns how many loaded (0 where the image cannot be read). */
  public static int load() {
    int loaded = 0;
    for (String name : names()) {
      try {
        Class.forName(name, true, ClassLoader.getPlatformClassLoader());
        loaded++;
      } catch (ClassNotFoundException | LinkageError | RuntimeException skipped) {
        // a class that cannot be loaded alone is loaded by its user, when it is needed
      }
    }
    return loaded;
  }

  /** The HTTP/2 classes of the running JDK's java.net.http module. */
  static List<String> names() {
    var names = new ArrayList<String>();
    FileSystem jrt;
    try {
      jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
    } catch (RuntimeException e) {
      return names;
    }
    Path root = jrt.getPath(ROOT);
    try (var files = Files.walk(root)) {
      files
          .map(p -> root.relativize(p).toString())
          .filter(p -> p.endsWith(".class"))
          .filter(
              p ->
                  p.startsWith("frame/")
                      || p.startsWith("hpack/")
                      || p.startsWith("Http2")
                      || p.startsWith("Stream"))
          .forEach(
              p ->
                  names.add(
                      "jdk.internal.net.http."
                          + p.substring(0, p.length() - ".class".length()).replace('/', '.')));
    } catch (IOException | RuntimeException e) {
      return names;
    }
    return names;
  }
}

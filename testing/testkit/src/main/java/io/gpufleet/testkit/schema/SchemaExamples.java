package io.gpufleet.testkit.schema;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The example documents the repository shows a reader for one published schema: every {@code .yaml}
 * file of a folder, then every {@code ```yaml} block of a Markdown page that holds a marker key (a
 * block without it is a fragment, not a whole document). Each is named by a string a parameterised
 * test can show: the file's path, or {@code page#yaml-N} for the N-th such block. {@code folder}
 * and {@code page} are relative to {@code root}.
 */
public record SchemaExamples(Path root, String folder, String page, String marker) {
  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL);

  /** The names of every example, the folder's files first (in listing order), then the page's. */
  public List<String> names() throws IOException {
    var out = new ArrayList<String>();
    try (var files = Files.list(root.resolve(folder))) {
      files.filter(f -> f.toString().endsWith(".yaml")).forEach(f -> out.add(f.toString()));
    }
    Matcher block = blocks();
    for (int i = 0; block.find(); ) {
      if (block.group(1).contains(marker)) {
        out.add(blockPrefix() + i++);
      }
    }
    return out;
  }

  /** Whether {@code name} is one of this page's blocks (else it is a file's path). */
  public boolean isBlock(String name) {
    return name.startsWith(blockPrefix());
  }

  /** The text of the example {@code name} (from {@link #names()}). */
  public String text(String name) throws IOException {
    if (!isBlock(name)) {
      return Files.readString(Path.of(name));
    }
    int wanted = Integer.parseInt(name.substring(blockPrefix().length()));
    Matcher block = blocks();
    for (int i = 0; block.find(); ) {
      if (block.group(1).contains(marker) && i++ == wanted) {
        return block.group(1);
      }
    }
    throw new IllegalArgumentException("no example " + name + " in " + page);
  }

  /**
   * Files named {@code fileName} in any module folder outside build output: a module's hand-kept
   * copy of a schema the build should copy from {@code schemas/} instead.
   */
  public static List<Path> handKeptCopies(Path root, String fileName) {
    try (var files =
        Stream.of("functions", "platform", "sim", "testing", "cli")
            .map(root::resolve)
            .filter(Files::isDirectory)
            .flatMap(SchemaExamples::walk)) {
      return files
          .filter(f -> f.getFileName().toString().equals(fileName))
          .filter(f -> !f.toString().contains("/target/"))
          .toList();
    }
  }

  private static Stream<Path> walk(Path dir) {
    try {
      return Files.walk(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String blockPrefix() {
    return page + "#yaml-";
  }

  private Matcher blocks() throws IOException {
    return YAML_BLOCK.matcher(Files.readString(root.resolve(page)));
  }
}

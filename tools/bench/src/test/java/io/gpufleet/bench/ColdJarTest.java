package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * build/ColdJar.java, run as the build runs it (a source file on this JDK's launcher): the listed
 * entries are stored within the byte budget, worst-compressing first; everything else stays
 * deflated and byte for byte the same; the manifest stays first; --check and --list agree with it.
 */
class ColdJarTest {
  @TempDir Path dir;

  static Path script() throws Exception {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("build/ColdJar.java"))) {
        return d.resolve("build/ColdJar.java");
      }
    }
    throw new IllegalStateException("build/ColdJar.java not found");
  }

  record Run(int exit, String out) {}

  static Run run(String... args) throws Exception {
    var cmd = new ArrayList<String>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add(script().toString());
    cmd.addAll(List.of(args));
    var p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(p.waitFor(), out);
  }

  /** Text compresses well, random bytes do not. */
  static byte[] text(int size) {
    return "class body ".repeat(size / 11 + 1).substring(0, size).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] noise(int size, long seed) {
    var b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  Path jar(Map<String, byte[]> entries) throws Exception {
    var m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "a.Main");
    Path jar = dir.resolve("f-lambda.jar");
    try (var out = new JarOutputStream(Files.newOutputStream(jar), m)) {
      for (var e : entries.entrySet()) {
        out.putNextEntry(new ZipEntry(e.getKey()));
        out.write(e.getValue());
        out.closeEntry();
      }
    }
    return jar;
  }

  @Test
  void shouldStoreTheListedEntriesThatFitTheBudgetWorstCompressingFirst() throws Exception {
    var entries = new LinkedHashMap<String, byte[]>();
    entries.put("a/Hot.class", text(400_000)); // listed, compresses ~1000:1: costly to store
    entries.put("a/Noisy.class", noise(50_000, 1)); // listed, barely compresses: cheap to store
    entries.put("a/Cold.class", text(10_000)); // not listed
    entries.put("META-INF/versions/21/a/Noisy.class", noise(1_000, 2)); // listed (versioned)
    Path jar = jar(entries);
    Path list = dir.resolve("cold-classes.txt");
    Files.writeString(
        list,
        "# comment\na/Hot.class\na/Noisy.class\nMETA-INF/versions/21/a/Noisy.class\na/Gone.class\n");
    // room for the noisy entries (about 51 kB more) but not for the 400 kB text
    double budgetMib = (Files.size(jar) + 200_000) / 1048576.0;

    Run r = run(jar.toString(), list.toString(), Double.toString(budgetMib));

    assertThat(r.exit()).as(r.out()).isZero();
    assertThat(r.out())
        .contains("2 of 4 listed entries stored")
        .contains("1 listed not in the jar");
    assertThat(Files.size(jar)).isLessThanOrEqualTo((long) (budgetMib * 1048576));
    try (var zip = new ZipFile(jar.toFile())) {
      assertThat(zip.getEntry("a/Noisy.class").getMethod()).isEqualTo(ZipEntry.STORED);
      assertThat(zip.getEntry("META-INF/versions/21/a/Noisy.class").getMethod())
          .isEqualTo(ZipEntry.STORED);
      assertThat(zip.getEntry("a/Hot.class").getMethod()).isEqualTo(ZipEntry.DEFLATED);
      assertThat(zip.getEntry("a/Cold.class").getMethod()).isEqualTo(ZipEntry.DEFLATED);
      assertThat(zip.entries().nextElement().getName()).isEqualTo("META-INF/MANIFEST.MF");
      for (var e : entries.entrySet()) {
        assertThat(zip.getInputStream(zip.getEntry(e.getKey())).readAllBytes())
            .as(e.getKey())
            .isEqualTo(e.getValue());
      }
    }
    try (var jf = new JarFile(jar.toFile())) {
      assertThat(jf.getManifest().getMainAttributes().getValue("Main-Class")).isEqualTo("a.Main");
    }

    Run check = run("--check", jar.toString(), list.toString(), "30");
    assertThat(check.exit()).as(check.out()).isZero();
    assertThat(check.out()).contains("4 listed, 3 in the jar, 2 of them stored");
    // one of four listed entries missing is 25 %: stale at a 5 % tolerance
    Run stale = run("--check", jar.toString(), list.toString(), "5");
    assertThat(stale.exit()).isEqualTo(1);
    assertThat(stale.out()).contains("stale");
  }

  @Test
  void shouldStoreEverythingListedWhenTheBudgetAllowsAndLeaveAJarWithoutAListAlone()
      throws Exception {
    var entries = new LinkedHashMap<String, byte[]>();
    entries.put("a/Hot.class", text(100_000));
    entries.put("a/Cold.class", text(100_000));
    Path jar = jar(entries);
    byte[] before = Files.readAllBytes(jar);

    Run none = run(jar.toString(), dir.resolve("missing.txt").toString(), "24");
    assertThat(none.exit()).isZero();
    assertThat(Files.readAllBytes(jar)).isEqualTo(before);
    assertThat(run("--check", jar.toString(), dir.resolve("missing.txt").toString(), "5").exit())
        .isEqualTo(1);

    Path list = dir.resolve("cold-classes.txt");
    Files.writeString(list, "a/Hot.class\n");
    assertThat(run(jar.toString(), list.toString(), "24").exit()).isZero();
    try (var zip = new ZipFile(jar.toFile())) {
      assertThat(zip.getEntry("a/Hot.class").getMethod()).isEqualTo(ZipEntry.STORED);
      assertThat(zip.getEntry("a/Cold.class").getMethod()).isEqualTo(ZipEntry.DEFLATED);
    }
  }

  @Test
  void shouldListTheClassesAClassLoadLogShowsReadFromAJarUnderEveryNameTheJarHolds()
      throws Exception {
    var entries = new LinkedHashMap<String, byte[]>();
    entries.put("a/Hot.class", text(100));
    entries.put("META-INF/versions/17/a/Hot.class", text(100));
    entries.put("a/Cold.class", text(100));
    entries.put("a/Other.class", text(100));
    Path jar = jar(entries);
    Path log = dir.resolve("run-1.log");
    Files.writeString(
        log,
        String.join(
            "\n",
            "[0.010s][info][class,load] java.lang.Object source: shared objects file",
            "[0.020s][info][class,load] a.Hot source: file:/var/task/lib/f-lambda.jar",
            "[0.030s][info][class,load] java.net.URI source: jrt:/java.base",
            "[0.040s][info][class,load] a.Other source: jar:file:/x/f-lambda.jar!/",
            "[0.050s][info][class,load] a.Hot$$Lambda/0x1 source: a.Hot",
            ""));
    Path list = dir.resolve("cold-classes.txt");

    Run r = run("--list", jar.toString(), list.toString(), log.toString());

    assertThat(r.exit()).as(r.out()).isZero();
    assertThat(Files.readAllLines(list).stream().filter(l -> !l.startsWith("#")))
        .containsExactly("META-INF/versions/17/a/Hot.class", "a/Hot.class", "a/Other.class");
  }
}

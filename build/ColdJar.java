import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites a deployment jar so that the class files a fresh JVM reads before the function's first
 * answer are stored uncompressed, and everything else stays deflated. A class read from a stored
 * entry is a copy, not an inflate: in Lambda the jar sits under /var/task/lib and the JVM reads it
 * the same way, so this is time taken off every cold start that does not come from SnapStart.
 *
 * <p>Which entries: the function's cold-start list ({@code functions/F/cold-classes.txt}, written
 * by {@code scripts/cold-classes.sh} from a {@code bench cold} run's class-load log). Storing all
 * of them can make the jar larger than its size limit, so a byte budget caps the jar: entries are
 * taken in the order that buys the most inflate work per byte of growth (worst compression first,
 * that is the largest compressed/uncompressed ratio), until the next one would pass the budget.
 * Entries the list names that the jar does not hold are counted (a stale list) and skipped.
 *
 * <p>Run as a source file: {@code java build/ColdJar.java JAR LIST BUDGET_MIB} rewrites JAR in
 * place; {@code java build/ColdJar.java --check JAR LIST MAX_STALE_PERCENT} reads it and exits 1
 * when there is no list, more of the list than that share is missing from the jar (the list went
 * stale), or none of it is stored (the jar was not rewritten). Both print one summary line. {@code java build/ColdJar.java --list JAR
 * LIST LOG...} writes LIST from class-load logs ({@code -Xlog:class+load}) of runs of JAR: every
 * class the logs show loaded from a jar that JAR holds, under its plain and versioned names.
 */
public class ColdJar {
  record Entry(String name, long size, long compressed) {
    /** Bytes the jar grows by when this entry is stored instead of deflated. */
    long growth() {
      return Math.max(0, size - compressed);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 4 && args[0].equals("--check")) {
      System.exit(check(Path.of(args[1]), Path.of(args[2]), Double.parseDouble(args[3])));
    }
    if (args.length >= 4 && args[0].equals("--list")) {
      writeList(Path.of(args[1]), Path.of(args[2]), List.of(args).subList(3, args.length));
      return;
    }
    if (args.length != 3) {
      System.err.println(
          "usage: java build/ColdJar.java JAR LIST BUDGET_MIB | --check JAR LIST MAX_STALE_PERCENT"
              + " | --list JAR LIST CLASS_LOAD_LOG...");
      System.exit(2);
    }
    rewrite(Path.of(args[0]), Path.of(args[1]), (long) (Double.parseDouble(args[2]) * 1048576));
  }

  static List<String> readList(Path list) throws IOException {
    var names = new ArrayList<String>();
    for (String line : Files.readAllLines(list)) {
      String name = line.strip();
      if (!name.isEmpty() && !name.startsWith("#")) {
        names.add(name);
      }
    }
    return names;
  }

  /** The listed entries to store, in the order chosen, within {@code budget} bytes of jar. */
  static Set<String> chosen(Map<String, Entry> jar, List<String> listed, long jarBytes, long budget) {
    var candidates = new ArrayList<Entry>();
    for (String name : new HashSet<>(listed)) {
      Entry e = jar.get(name);
      if (e != null) {
        candidates.add(e);
      }
    }
    candidates.sort(
        Comparator.comparingDouble((Entry e) -> -(double) e.compressed() / Math.max(1, e.size()))
            .thenComparing(Entry::name));
    var chosen = new HashSet<String>();
    long size = jarBytes;
    for (Entry e : candidates) {
      if (size + e.growth() > budget) {
        break;
      }
      size += e.growth();
      chosen.add(e.name());
    }
    return chosen;
  }

  static Map<String, Entry> entries(ZipFile zip) {
    var map = new LinkedHashMap<String, Entry>();
    zip.stream()
        .forEach(
            z -> map.put(z.getName(), new Entry(z.getName(), z.getSize(), z.getCompressedSize())));
    return map;
  }

  static void rewrite(Path jar, Path list, long budget) throws IOException {
    if (!Files.isRegularFile(list)) {
      // a new function, before its first list: the jar stays as it is (jar-sizes.sh flags it)
      System.out.printf("cold-jar: %s: no %s, nothing stored%n", jar.getFileName(), list);
      return;
    }
    List<String> listed = readList(list);
    Path tmp = Files.createTempFile(jar.toAbsolutePath().getParent(), "cold", ".jar");
    int stored = 0;
    long storedBytes = 0;
    int missing;
    try (var zip = new ZipFile(jar.toFile())) {
      Map<String, Entry> entries = entries(zip);
      missing = (int) listed.stream().filter(n -> !entries.containsKey(n)).count();
      Set<String> store = chosen(entries, listed, Files.size(jar), budget);
      try (var out = new ZipOutputStream(Files.newOutputStream(tmp))) {
        out.setLevel(9);
        // the manifest first: java -jar and JarInputStream look for it there
        var order = new ArrayList<>(entries.keySet());
        order.sort(Comparator.comparingInt(n -> n.equals("META-INF/MANIFEST.MF") ? 0 : 1));
        for (String name : order) {
          ZipEntry from = zip.getEntry(name);
          byte[] bytes;
          try (InputStream in = zip.getInputStream(from)) {
            bytes = in.readAllBytes();
          }
          var to = new ZipEntry(name);
          to.setTime(from.getTime());
          if (store.contains(name)) {
            var crc = new CRC32();
            crc.update(bytes);
            to.setMethod(ZipEntry.STORED);
            to.setSize(bytes.length);
            to.setCompressedSize(bytes.length);
            to.setCrc(crc.getValue());
            stored++;
            storedBytes += bytes.length;
          } else {
            to.setMethod(ZipEntry.DEFLATED);
          }
          out.putNextEntry(to);
          out.write(bytes);
          out.closeEntry();
        }
      }
    }
    Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING);
    System.out.printf(
        "cold-jar: %s: %d of %d listed entries stored (%.1f MiB uncompressed), %d listed not in"
            + " the jar; jar %.2f MiB (budget %.2f MiB)%n",
        jar.getFileName(),
        stored,
        listed.size(),
        storedBytes / 1048576.0,
        missing,
        Files.size(jar) / 1048576.0,
        budget / 1048576.0);
  }

  static void writeList(Path jar, Path list, List<String> logs) throws IOException {
    // "[0.123s][info][class,load] a.b.C source: file:/.../x.jar" (or "jar:file:..." for a nested one)
    var pattern = java.util.regex.Pattern.compile("\\] (\\S+) source: \\S*jar");
    var classes = new java.util.TreeSet<String>();
    for (String log : logs) {
      for (String line : Files.readAllLines(Path.of(log))) {
        var m = pattern.matcher(line);
        if (m.find()) {
          classes.add(m.group(1).replace('.', '/') + ".class");
        }
      }
    }
    var names = new java.util.TreeSet<String>();
    try (var zip = new ZipFile(jar.toFile())) {
      zip.stream()
          .map(ZipEntry::getName)
          .forEach(
              n -> {
                String plain = n.startsWith("META-INF/versions/") ? n.replaceFirst("^META-INF/versions/\\d+/", "") : n;
                if (classes.contains(plain)) {
                  names.add(n);
                }
              });
    }
    var out = new ArrayList<String>();
    out.add("# Class files a fresh JVM reads from this function's deployment jar before its first");
    out.add("# answer, from `./gpufleet bench cold` class-load logs (scripts/cold-classes.sh writes");
    out.add("# this file). build/ColdJar.java stores them uncompressed in the jar, within a budget.");
    out.addAll(names);
    Files.write(list, out);
    System.out.printf("cold-jar: %s: %d entries from %d classes loaded%n", list, names.size(), classes.size());
  }

  static int check(Path jar, Path list, double maxStalePercent) throws IOException {
    if (!Files.isRegularFile(list)) {
      System.out.printf(
          "cold-jar: %s: no %s; write it: scripts/cold-classes.sh FUNCTION%n",
          jar.getFileName(), list);
      return 1;
    }
    List<String> listed = readList(list);
    int present = 0;
    int stored = 0;
    try (var zip = new ZipFile(jar.toFile())) {
      for (String name : listed) {
        ZipEntry e = zip.getEntry(name);
        if (e != null) {
          present++;
          if (e.getMethod() == ZipEntry.STORED) {
            stored++;
          }
        }
      }
    }
    int missing = listed.size() - present;
    double stalePercent = listed.isEmpty() ? 100 : 100.0 * missing / listed.size();
    System.out.printf(
        "cold-jar: %s: %d listed, %d in the jar, %d of them stored; %.1f %% of the list missing"
            + " (at most %.1f %%)%n",
        jar.getFileName(), listed.size(), present, stored, stalePercent, maxStalePercent);
    if (listed.isEmpty() || stalePercent > maxStalePercent) {
      System.out.println(
          "cold-jar: the cold-start list is stale; regenerate it: scripts/cold-classes.sh FUNCTION");
      return 1;
    }
    if (stored == 0) {
      System.out.println("cold-jar: no listed entry is stored: the jar was not rewritten");
      return 1;
    }
    return 0;
  }
}

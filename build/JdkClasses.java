import java.net.URI;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Writes the running JDK's class files into one jar, for ProGuard's -libraryjars (JDKs from 24 on
 * may ship without jmods/, and ProGuard cannot read the jrt file system itself). Skips the work
 * when the jar exists and was written by the same Java version (its name carries the version).
 * Run as a source file: java build/JdkClasses.java OUTPUT.jar
 */
public class JdkClasses {
  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    if (Files.isRegularFile(out) && Files.size(out) > 0) {
      return;
    }
    Files.createDirectories(out.toAbsolutePath().getParent());
    Path tmp = Files.createTempFile(out.toAbsolutePath().getParent(), "jdk", ".tmp");
    var jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
    try (var zip = new ZipOutputStream(Files.newOutputStream(tmp));
        var walk = Files.walk(jrt.getPath("/modules"))) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        String file = p.getFileName() == null ? "" : p.getFileName().toString();
        if (!file.endsWith(".class") || file.equals("module-info.class")) {
          continue;
        }
        zip.putNextEntry(new ZipEntry(p.subpath(2, p.getNameCount()).toString()));
        zip.write(Files.readAllBytes(p));
        zip.closeEntry();
      }
    }
    Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }
}

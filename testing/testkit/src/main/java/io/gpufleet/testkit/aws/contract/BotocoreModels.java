package io.gpufleet.testkit.aws.contract;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The AWS service models botocore ships ({@code
 * botocore/data/<service>/<api-version>/service-2.json}, gzip-compressed in current releases):
 * found in {@code $GPUFLEET_BOTOCORE_DATA}, else in the virtualenv of {@code $MOTO_SERVER}, else in
 * the nearest {@code .venv} above the working directory (the test command installs botocore there
 * as moto's dependency, pinned in scripts/requirements-test.txt). The newest API version of a
 * service is used. Models are parsed once per JVM.
 */
public final class BotocoreModels {
  public static final String DATA_ENV = "GPUFLEET_BOTOCORE_DATA";

  /** Java SDK package names whose botocore directory is not the package name (hyphens aside). */
  private static final Map<String, String> ALIASES =
      Map.of("eventbridge", "events", "cloudwatchlogs", "logs", "costexplorer", "ce");

  private static volatile BotocoreModels shared;

  private final Path data;
  private final Map<String, String> dirByPackage = new ConcurrentHashMap<>();
  private final Map<String, ServiceModel> models = new ConcurrentHashMap<>();

  BotocoreModels(Path data) {
    this.data = data;
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(data, Files::isDirectory)) {
      for (Path d : dirs) {
        String name = d.getFileName().toString();
        dirByPackage.putIfAbsent(name.replace("-", ""), name);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list botocore data at " + data, e);
    }
  }

  /** The models of this JVM (located once). */
  public static BotocoreModels shared() {
    var s = shared;
    if (s == null) {
      synchronized (BotocoreModels.class) {
        if (shared == null) {
          shared =
              new BotocoreModels(
                  locate(System.getenv(DATA_ENV), System.getenv("MOTO_SERVER"), Path.of("")));
        }
        s = shared;
      }
    }
    return s;
  }

  /** The botocore data directory, or a precise error saying where it was looked for. */
  public static Path locate(String dataEnv, String motoServerEnv, Path start) {
    var looked = new ArrayList<String>();
    if (dataEnv != null && !dataEnv.isBlank()) {
      Path p = Path.of(dataEnv.trim());
      if (Files.isDirectory(p.resolve("ec2"))) {
        return p;
      }
      throw new IllegalStateException(
          "$" + DATA_ENV + "=" + p + " is not a botocore data directory (no ec2/ in it)");
    }
    looked.add("$" + DATA_ENV + " (not set)");
    var venvs = new ArrayList<Path>();
    if (motoServerEnv != null && !motoServerEnv.isBlank()) {
      Path bin = Path.of(motoServerEnv.trim()).toAbsolutePath().getParent();
      if (bin != null && bin.getParent() != null) {
        venvs.add(bin.getParent());
      }
    }
    for (Path dir = start.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
      venvs.add(dir.resolve(".venv"));
    }
    for (Path venv : venvs) {
      looked.add(venv + "/lib/python*/site-packages/botocore/data");
      var found = inVenv(venv);
      if (found.isPresent()) {
        return found.get();
      }
    }
    throw new IllegalStateException(
        "botocore's service models were not found (looked at "
            + String.join(", ", looked)
            + "). Run the test command from the README (it creates .venv with moto[server] and"
            + " botocore), or export "
            + DATA_ENV
            + "=/path/to/site-packages/botocore/data.");
  }

  private static Optional<Path> inVenv(Path venv) {
    Path lib = venv.resolve("lib");
    if (!Files.isDirectory(lib)) {
      return Optional.empty();
    }
    try (Stream<Path> pythons = Files.list(lib)) {
      return pythons
          .filter(p -> p.getFileName().toString().startsWith("python"))
          .map(p -> p.resolve("site-packages/botocore/data"))
          .filter(p -> Files.isDirectory(p.resolve("ec2")))
          .findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  public Path dataDirectory() {
    return data;
  }

  /**
   * The model for a Java SDK service package name ({@code ec2}, {@code servicequotas}, {@code
   * eventbridge}, ...).
   */
  public ServiceModel forSdkPackage(String sdkPackage) {
    String key = sdkPackage.toLowerCase(Locale.ROOT);
    String dir = dirByPackage.get(ALIASES.getOrDefault(key, key).replace("-", ""));
    if (dir == null) {
      throw new IllegalStateException(
          "no botocore model for SDK package '" + sdkPackage + "' under " + data);
    }
    return service(dir);
  }

  /** The model of a botocore service directory ({@code ec2}, {@code service-quotas}, ...). */
  public ServiceModel service(String dir) {
    return models.computeIfAbsent(dir, this::load);
  }

  private ServiceModel load(String dir) {
    Path serviceDir = data.resolve(dir);
    try (Stream<Path> versions = Files.list(serviceDir)) {
      Path version =
          versions
              .filter(
                  v ->
                      Files.exists(v.resolve("service-2.json.gz"))
                          || Files.exists(v.resolve("service-2.json")))
              .max(Comparator.comparing(v -> v.getFileName().toString()))
              .orElseThrow(() -> new IllegalStateException("no service-2.json in " + serviceDir));
      return new ServiceModel(dir, version.getFileName().toString(), read(version));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the botocore model of " + dir, e);
    }
  }

  private static JsonNode read(Path version) throws IOException {
    Path gz = version.resolve("service-2.json.gz");
    if (Files.exists(gz)) {
      try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
        return Json.MAPPER.readTree(in);
      }
    }
    return Json.MAPPER.readTree(version.resolve("service-2.json").toFile());
  }

  /** Names of the services whose models were loaded so far (for reports). */
  public List<String> loaded() {
    return models.values().stream().map(m -> m.service() + "@" + m.apiVersion()).sorted().toList();
  }
}

package io.gpufleet.cost.aws;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * A JSON-protocol request checked against the AWS service model botocore ships ({@code
 * botocore/data/<service>/<version>/service-2.json[.gz]}): required members, unknown members,
 * types, enums, string length and pattern, list and map shapes. The model is found in the test venv
 * (next to $MOTO_SERVER, or the nearest .venv up from the working directory), where scripts/test.sh
 * installs moto and with it botocore.
 */
final class BotocoreModel {
  private final JsonNode model;

  private BotocoreModel(JsonNode model) {
    this.model = model;
  }

  static Optional<BotocoreModel> load(String service, String version) {
    for (Path site : sitePackages()) {
      Path dir = site.resolve("botocore/data/" + service + "/" + version);
      for (String name : List.of("service-2.json", "service-2.json.gz")) {
        Path f = dir.resolve(name);
        if (Files.isRegularFile(f)) {
          try (InputStream in =
              name.endsWith(".gz")
                  ? new GZIPInputStream(Files.newInputStream(f))
                  : Files.newInputStream(f)) {
            return Optional.of(new BotocoreModel(Json.MAPPER.readTree(in)));
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      }
    }
    return Optional.empty();
  }

  private static List<Path> sitePackages() {
    var venvs = new ArrayList<Path>();
    String moto = System.getenv("MOTO_SERVER");
    if (moto != null && !moto.isBlank()) {
      venvs.add(Path.of(moto).toAbsolutePath().getParent().getParent());
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      venvs.add(p.resolve(".venv"));
    }
    var out = new ArrayList<Path>();
    for (Path v : venvs) {
      Path lib = v.resolve("lib");
      if (!Files.isDirectory(lib)) {
        continue;
      }
      try (Stream<Path> s = Files.list(lib)) {
        s.filter(x -> x.getFileName().toString().startsWith("python"))
            .map(x -> x.resolve("site-packages"))
            .forEach(out::add);
      } catch (IOException e) {
        // not a venv
      }
    }
    return out;
  }

  /** Problems of a request body of an operation (empty: valid). */
  List<String> validate(String operation, String body) throws IOException {
    JsonNode op = model.path("operations").path(operation);
    if (op.isMissingNode()) {
      return List.of("unknown operation " + operation);
    }
    var problems = new ArrayList<String>();
    check(op.path("input").path("shape").asText(), Json.MAPPER.readTree(body), operation, problems);
    return problems;
  }

  private void check(String shapeName, JsonNode v, String path, List<String> problems) {
    JsonNode shape = model.path("shapes").path(shapeName);
    String type = shape.path("type").asText();
    switch (type) {
      case "structure" -> {
        if (!v.isObject()) {
          problems.add(path + ": not an object");
          return;
        }
        shape
            .path("required")
            .forEach(
                r -> {
                  if (!v.has(r.asText())) {
                    problems.add(path + "." + r.asText() + ": required");
                  }
                });
        v.fieldNames()
            .forEachRemaining(
                f -> {
                  JsonNode m = shape.path("members").path(f);
                  if (m.isMissingNode()) {
                    problems.add(path + "." + f + ": not a member of " + shapeName);
                  } else {
                    check(m.path("shape").asText(), v.get(f), path + "." + f, problems);
                  }
                });
      }
      case "list" -> {
        if (!v.isArray()) {
          problems.add(path + ": not a list");
          return;
        }
        bounds(shape, v.size(), path, problems);
        for (int i = 0; i < v.size(); i++) {
          check(
              shape.path("member").path("shape").asText(),
              v.get(i),
              path + "[" + i + "]",
              problems);
        }
      }
      case "map" -> {
        if (!v.isObject()) {
          problems.add(path + ": not a map");
        }
      }
      case "string" -> {
        if (!v.isTextual()) {
          problems.add(path + ": not a string");
          return;
        }
        String s = v.asText();
        bounds(shape, s.length(), path, problems);
        if (shape.has("enum")) {
          boolean ok = false;
          for (JsonNode e : shape.get("enum")) {
            ok |= e.asText().equals(s);
          }
          if (!ok) {
            problems.add(path + ": '" + s + "' not in " + shape.get("enum"));
          }
        }
        if (shape.has("pattern")
            && !Pattern.compile(shape.get("pattern").asText()).matcher(s).matches()) {
          problems.add(path + ": '" + s + "' does not match " + shape.get("pattern").asText());
        }
      }
      case "integer", "long" -> {
        if (!v.isIntegralNumber()) {
          problems.add(path + ": not an integer");
        } else {
          bounds(shape, v.asLong(), path, problems);
        }
      }
      case "boolean" -> {
        if (!v.isBoolean()) {
          problems.add(path + ": not a boolean");
        }
      }
      default -> {
        // timestamps, doubles, blobs: the SDK's own marshalling
      }
    }
  }

  private static void bounds(JsonNode shape, long n, String path, List<String> problems) {
    if (shape.has("min") && n < shape.get("min").asLong()) {
      problems.add(path + ": below min " + shape.get("min"));
    }
    if (shape.has("max") && n > shape.get("max").asLong()) {
      problems.add(path + ": above max " + shape.get("max"));
    }
  }
}

package io.gpufleet.drain.aws;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.sim.aws.AwsStubServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * A focused check of query-protocol requests (as a stub received them on the wire) against
 * botocore's service model: every required member present, no member the model does not know,
 * strings within min/max and their pattern, enums, list sizes. The model is found in {@code
 * $GPUFLEET_BOTOCORE_DATA}, else beside {@code $MOTO_SERVER}'s virtualenv, else in the nearest
 * {@code .venv} above the working directory (the test command installs botocore there with moto).
 */
final class QueryModelCheck {
  private final JsonNode model;

  private QueryModelCheck(JsonNode model) {
    this.model = model;
  }

  static QueryModelCheck of(String service, String version) {
    Path file = dataDir().resolve(service).resolve(version).resolve("service-2.json.gz");
    Path plain = file.resolveSibling("service-2.json");
    try (InputStream in =
        Files.exists(file)
            ? new GZIPInputStream(Files.newInputStream(file))
            : Files.newInputStream(plain)) {
      return new QueryModelCheck(Json.MAPPER.readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the botocore model " + file, e);
    }
  }

  static Path dataDir() {
    String env = System.getenv("GPUFLEET_BOTOCORE_DATA");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    var roots = new ArrayList<Path>();
    String moto = System.getenv("MOTO_SERVER");
    if (moto != null && !moto.isBlank()) {
      roots.add(Path.of(moto).toAbsolutePath().getParent().getParent());
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      roots.add(d.resolve(".venv"));
    }
    for (Path venv : roots) {
      Path lib = venv.resolve("lib");
      if (!Files.isDirectory(lib)) {
        continue;
      }
      try (Stream<Path> pythons = Files.list(lib)) {
        for (Path py : pythons.toList()) {
          Path data = py.resolve("site-packages/botocore/data");
          if (Files.isDirectory(data)) {
            return data;
          }
        }
      } catch (IOException ignored) {
        // try the next root
      }
    }
    throw new IllegalStateException(
        "botocore's data directory not found (set GPUFLEET_BOTOCORE_DATA, or MOTO_SERVER to the"
            + " moto_server of a virtualenv; ./gpufleet test creates .venv); looked in "
            + roots);
  }

  /** Every way this call breaks the model; empty when AWS would accept its shape. */
  List<String> violations(AwsStubServer.Call call) {
    var out = new ArrayList<String>();
    JsonNode op = model.path("operations").path(call.operation());
    if (op.isMissingNode()) {
      return List.of("operation " + call.operation() + " is not in the model");
    }
    if (!model.path("metadata").path("apiVersion").asText().equals(call.params().get("Version"))) {
      out.add("Version " + call.params().get("Version") + " is not the model's apiVersion");
    }
    JsonNode input = shape(op.path("input").path("shape").asText());
    for (JsonNode r : input.path("required")) {
      if (call.params().keySet().stream()
          .noneMatch(k -> k.equals(r.asText()) || k.startsWith(r.asText() + "."))) {
        out.add(call.operation() + ": required member " + r.asText() + " is missing");
      }
    }
    for (Map.Entry<String, String> p : call.params().entrySet()) {
      String key = p.getKey();
      if (key.equals("Action") || key.equals("Version")) {
        continue;
      }
      String member = key.contains(".") ? key.substring(0, key.indexOf('.')) : key;
      JsonNode ref = input.path("members").path(member);
      if (ref.isMissingNode()) {
        out.add(call.operation() + ": unknown member " + key);
        continue;
      }
      JsonNode shape = shape(ref.path("shape").asText());
      if (shape.path("type").asText().equals("list")) {
        shape = shape(shape.path("member").path("shape").asText());
        if (shape.path("type").asText().equals("structure")) {
          // a list of structures: Name.member.N.Field, each field checked against its shape
          var m = Pattern.compile(Pattern.quote(member) + "\\.member\\.\\d+\\.(\\w+)").matcher(key);
          JsonNode field = m.matches() ? shape.path("members").path(m.group(1)) : null;
          if (field == null || field.isMissingNode()) {
            out.add(call.operation() + ": list member " + key + " is not Name.member.N.Field");
            continue;
          }
          shape = shape(field.path("shape").asText());
        } else if (!key.matches(Pattern.quote(member) + "\\.member\\.\\d+")) {
          out.add(call.operation() + ": list member " + key + " is not Name.member.N");
        }
      }
      check(call.operation() + "." + key, shape, p.getValue(), out);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = input.path("members").fields();
        it.hasNext(); ) {
      var m = it.next();
      JsonNode shape = shape(m.getValue().path("shape").asText());
      if (shape.path("type").asText().equals("list") && shape.has("max")) {
        long n =
            call.params().keySet().stream()
                .filter(k -> k.startsWith(m.getKey() + ".member."))
                .count();
        if (n > shape.path("max").asLong()) {
          out.add(
              call.operation() + "." + m.getKey() + ": " + n + " items, max " + shape.path("max"));
        }
      }
    }
    return out;
  }

  private void check(String where, JsonNode shape, String value, List<String> out) {
    switch (shape.path("type").asText()) {
      case "string" -> {
        int len = value.codePointCount(0, value.length());
        if (shape.has("min") && len < shape.path("min").asInt()) {
          out.add(where + ": length " + len + " < min " + shape.path("min"));
        }
        if (shape.has("max") && len > shape.path("max").asInt()) {
          out.add(where + ": length " + len + " > max " + shape.path("max"));
        }
        if (shape.has("pattern")
            && !Pattern.compile(shape.path("pattern").asText()).matcher(value).find()) {
          out.add(where + ": '" + value + "' does not match " + shape.path("pattern").asText());
        }
        if (shape.has("enum")) {
          boolean known = false;
          for (JsonNode e : shape.path("enum")) {
            known |= e.asText().equals(value);
          }
          if (!known) {
            out.add(where + ": '" + value + "' is not one of " + shape.path("enum"));
          }
        }
      }
      case "integer", "long" -> {
        try {
          long n = Long.parseLong(value);
          if (shape.has("min") && n < shape.path("min").asLong()) {
            out.add(where + ": " + n + " < min " + shape.path("min"));
          }
          if (shape.has("max") && n > shape.path("max").asLong()) {
            out.add(where + ": " + n + " > max " + shape.path("max"));
          }
        } catch (NumberFormatException e) {
          out.add(where + ": '" + value + "' is not a number");
        }
      }
      case "boolean" -> {
        if (!value.equals("true") && !value.equals("false")) {
          out.add(where + ": '" + value + "' is not a boolean");
        }
      }
      default -> {
        // structures and maps are not used by the calls checked here
      }
    }
  }

  private JsonNode shape(String name) {
    return model.path("shapes").path(name);
  }
}

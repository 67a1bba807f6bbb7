package io.gpufleet.testkit.aws.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One AWS service's botocore model, checking an operation's input the way the service's front end
 * does before it acts: required members, {@code min}/{@code max} (string and blob lengths, list and
 * map sizes, numeric ranges), enums and patterns (not anchored, as Smithy defines them),
 * recursively.
 *
 * <p>The input is a tree keyed by the model's member names (not the wire's location names): the
 * typed SDK request converted by {@link SdkRequestTree}, or a JSON-protocol body as received.
 */
public final class ServiceModel {

  /** A request AWS would refuse: where in the input and why. */
  public record Violation(String service, String operation, String path, String problem) {
    @Override
    public String toString() {
      return service + " " + operation + ": " + path + " " + problem;
    }
  }

  private final String service;
  private final String apiVersion;
  private final JsonNode model;
  private final JsonNode shapes;
  private final boolean ec2Protocol;
  private final Map<String, Optional<Pattern>> patterns = new ConcurrentHashMap<>();

  ServiceModel(String service, String apiVersion, JsonNode model) {
    this.service = service;
    this.apiVersion = apiVersion;
    this.model = model;
    this.shapes = model.path("shapes");
    this.ec2Protocol = "ec2".equals(model.path("metadata").path("protocol").asText());
  }

  public String service() {
    return service;
  }

  public String apiVersion() {
    return apiVersion;
  }

  /** The wire protocol (ec2, query, json, rest-json, rest-xml). */
  public String protocol() {
    return model.path("metadata").path("protocol").asText();
  }

  /**
   * EC2's query protocol leaves empty lists off the wire, so an empty list there is an absent one.
   */
  public boolean dropsEmptyLists() {
    return ec2Protocol;
  }

  /** The model's metadata block (protocol, jsonVersion, targetPrefix, signingName, ...). */
  JsonNode metadata() {
    return model.path("metadata");
  }

  /** The name of the operation's input shape, or null (no operation, or no input). */
  String inputShape(String operation) {
    return model.path("operations").path(operation).path("input").path("shape").asText(null);
  }

  /** The operation's HTTP binding ({@code method}, {@code requestUri}); missing when none. */
  JsonNode http(String operation) {
    return model.path("operations").path(operation).path("http");
  }

  /** A shape of the model by name (a missing node when there is none). */
  JsonNode shape(String name) {
    return shapes.path(name);
  }

  /** An operation of the model by name: its http binding, input, output (missing when none). */
  JsonNode operation(String name) {
    return model.path("operations").path(name);
  }

  /**
   * Every reason AWS would refuse {@code value} as a {@code shapeName}, reported at {@code path}.
   */
  List<Violation> validateShape(String operation, String shapeName, JsonNode value, String path) {
    var out = new ArrayList<Violation>();
    check(operation, shapeName, value, path, out);
    return out;
  }

  /**
   * The model's documentation of one member of {@code operation}'s input, tags stripped (the limits
   * AWS states only in prose, such as Capacity Block durations); empty when there is none.
   */
  public String inputMemberDocumentation(String operation, String member) {
    String shape = inputShape(operation);
    if (shape == null) {
      return "";
    }
    String doc = shapes.path(shape).path("members").path(member).path("documentation").asText("");
    return doc.replaceAll("<[^>]+>", "").replaceAll("\\s+", " ").trim();
  }

  public boolean hasOperation(String operation) {
    return model.path("operations").has(operation);
  }

  /** Every reason AWS would refuse this input of {@code operation}; empty when it is valid. */
  public List<Violation> validate(String operation, JsonNode input) {
    var out = new ArrayList<Violation>();
    JsonNode op = model.path("operations").path(operation);
    if (op.isMissingNode()) {
      out.add(new Violation(service, operation, "", "is not an operation of " + service));
      return out;
    }
    String inputShape = op.path("input").path("shape").asText(null);
    if (inputShape == null) {
      return out;
    }
    check(operation, inputShape, input, inputShape, out);
    return out;
  }

  private void check(
      String operation, String shapeName, JsonNode value, String path, List<Violation> out) {
    JsonNode shape = shapes.path(shapeName);
    if (shape.isMissingNode() || value == null || value.isNull()) {
      return;
    }
    switch (shape.path("type").asText()) {
      case "structure" -> structure(operation, shape, value, path, out);
      case "list" -> {
        if (!value.isArray()) {
          out.add(v(operation, path, "must be a list"));
          return;
        }
        size(operation, shape, value.size(), path, "list size", out);
        String member = shape.path("member").path("shape").asText();
        for (int i = 0; i < value.size(); i++) {
          check(operation, member, value.get(i), path + "[" + i + "]", out);
        }
      }
      case "map" -> {
        if (!value.isObject()) {
          out.add(v(operation, path, "must be a map"));
          return;
        }
        size(operation, shape, value.size(), path, "map size", out);
        String key = shape.path("key").path("shape").asText();
        String val = shape.path("value").path("shape").asText();
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
          var e = it.next();
          check(
              operation,
              key,
              com.fasterxml.jackson.databind.node.TextNode.valueOf(e.getKey()),
              path + "{" + e.getKey() + "}",
              out);
          check(operation, val, e.getValue(), path + "{" + e.getKey() + "}", out);
        }
      }
      case "string" -> string(operation, shapeName, shape, value.asText(), path, out);
      case "integer", "long", "float", "double", "bigdecimal", "biginteger", "short", "byte" ->
          number(operation, shape, value, path, out);
      case "blob" -> {
        int length =
            value.isBinary()
                ? binaryLength(value)
                : value.asText().getBytes(StandardCharsets.UTF_8).length;
        size(operation, shape, length, path, "length", out);
      }
      default -> {
        // boolean, timestamp: no constraints in the models
      }
    }
  }

  private void structure(
      String operation, JsonNode shape, JsonNode value, String path, List<Violation> out) {
    if (!value.isObject()) {
      out.add(v(operation, path, "must be a structure"));
      return;
    }
    JsonNode members = shape.path("members");
    for (JsonNode required : shape.path("required")) {
      JsonNode present = value.get(required.asText());
      if (present == null || present.isNull()) {
        out.add(v(operation, path + "." + required.asText(), "is required but missing"));
      }
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
      var e = it.next();
      JsonNode member = members.get(e.getKey());
      if (member == null) {
        out.add(
            v(
                operation,
                path + "." + e.getKey(),
                "is not a member of " + shape.path("type").asText() + " in the model"));
        continue;
      }
      check(operation, member.path("shape").asText(), e.getValue(), path + "." + e.getKey(), out);
    }
  }

  private void string(
      String operation,
      String shapeName,
      JsonNode shape,
      String s,
      String path,
      List<Violation> out) {
    size(operation, shape, s.codePointCount(0, s.length()), path, "length", out);
    JsonNode values = shape.path("enum");
    if (values.isArray() && !values.isEmpty()) {
      boolean known = false;
      for (JsonNode e : values) {
        known |= e.asText().equals(s);
      }
      if (!known) {
        out.add(v(operation, path, "'" + s + "' is not one of " + values));
      }
    }
    if (shape.has("pattern")) {
      var p = pattern(shapeName, shape.path("pattern").asText());
      if (p.isPresent() && !p.get().matcher(s).find()) {
        out.add(v(operation, path, "'" + s + "' does not match " + shape.path("pattern").asText()));
      }
    }
  }

  private Optional<Pattern> pattern(String shapeName, String regex) {
    return patterns.computeIfAbsent(
        shapeName,
        k -> {
          try {
            return Optional.of(Pattern.compile(regex));
          } catch (PatternSyntaxException e) {
            // an ECMAScript construct Java cannot compile: the pattern is not checked
            return Optional.empty();
          }
        });
  }

  private void number(
      String operation, JsonNode shape, JsonNode value, String path, List<Violation> out) {
    double d = value.asDouble();
    if (shape.has("min") && d < shape.path("min").asDouble()) {
      out.add(v(operation, path, value.asText() + " is below the minimum " + shape.path("min")));
    }
    if (shape.has("max") && d > shape.path("max").asDouble()) {
      out.add(v(operation, path, value.asText() + " is above the maximum " + shape.path("max")));
    }
  }

  private void size(
      String operation, JsonNode shape, int size, String path, String what, List<Violation> out) {
    if (shape.has("min") && size < shape.path("min").asLong()) {
      out.add(v(operation, path, what + " " + size + " is below the minimum " + shape.path("min")));
    }
    if (shape.has("max") && size > shape.path("max").asLong()) {
      out.add(v(operation, path, what + " " + size + " is above the maximum " + shape.path("max")));
    }
  }

  private static int binaryLength(JsonNode value) {
    try {
      return value.binaryValue().length;
    } catch (java.io.IOException e) {
      return 0;
    }
  }

  private Violation v(String operation, String path, String problem) {
    return new Violation(service, operation, path, problem);
  }
}

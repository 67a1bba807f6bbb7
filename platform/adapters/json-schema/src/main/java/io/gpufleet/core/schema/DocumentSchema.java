package io.gpufleet.core.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.keyword.KeywordType;
import com.networknt.schema.keyword.NonValidationKeyword;
import com.networknt.schema.path.NodePath;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * A document's structural checks by its published JSON Schema (draft 2020-12, loaded once from the
 * classpath, where the build copies it from {@code schemas/}), turned into "path: message" problems
 * in the parsers' own path notation ({@code entries[1].zones[0]}). A schema object's {@code
 * errorMessage} / {@code patternErrorMessage} (the keywords editors show too) words the message,
 * placed after the offending value; {@code required} and {@code additionalProperties} are worded
 * here. Semantic checks stay with each parser.
 */
public final class DocumentSchema {
  private static final Set<String> STEPS = Set.of("allOf", "anyOf", "oneOf");
  private final JsonNode raw;
  private final Schema schema;

  private DocumentSchema(JsonNode raw) {
    this.raw = raw;
    this.schema =
        SchemaRegistry.withDefaultDialect(dialect())
            .getSchema(SchemaLocation.of(raw.path("$id").asText()), raw);
  }

  /** The schema at {@code resource} on the classpath. */
  public static DocumentSchema load(String resource) {
    return new DocumentSchema(read(resource));
  }

  /** Every structural problem of {@code document}, in document order, one per path and cause. */
  public List<String> problems(JsonNode document) {
    var out = new LinkedHashSet<String>();
    for (Error e : schema.validate(document)) {
      out.add(problem(e));
    }
    return new ArrayList<>(out);
  }

  private String problem(Error e) {
    String path = path(e.getInstanceLocation());
    String keyword = e.getKeyword();
    if ("required".equals(keyword)) {
      return join(path, e.getProperty()) + ": is required";
    }
    List<Object> at = segments(e.getSchemaLocation().getFragment());
    if ("propertyNames".equals(keyword)) {
      JsonNode names = owner(at).path("propertyNames");
      if (names.path("$ref").asText().startsWith("#/")) {
        names = raw.at(names.path("$ref").asText().substring(1));
      }
      return join(path, e.getProperty())
          + ": '"
          + e.getProperty()
          + "' "
          + names.path("errorMessage").asText("is not an allowed name");
    }
    if ("additionalProperties".equals(keyword)
        && owner(at).path("additionalProperties").isBoolean()) {
      var known = new TreeSet<String>();
      owner(at).path("properties").fieldNames().forEachRemaining(known::add);
      known.remove("$schema");
      return join(path, e.getProperty())
          + ": unknown field (known: "
          + String.join(", ", known)
          + ")";
    }
    String message = message(at, keyword);
    JsonNode value = e.getInstanceNode();
    if (message == null) {
      message = generic(e, owner(at).path(keyword));
    } else if (value != null && value.isValueNode() && !value.isNull()) {
      message = "'" + value.asText() + "' " + message;
    }
    return (path.isEmpty() ? "(document)" : path) + ": " + message;
  }

  /** The wording for a failed keyword: the nearest errorMessage through allOf/anyOf/oneOf/not. */
  private String message(List<Object> at, String keyword) {
    var steps = new ArrayList<>(at.subList(0, Math.max(0, at.size() - 1)));
    while (true) {
      JsonNode s = node(steps);
      if ("pattern".equals(keyword) && s.path("patternErrorMessage").isTextual()) {
        return s.path("patternErrorMessage").asText();
      }
      if (s.path("errorMessage").isTextual()) {
        return s.path("errorMessage").asText();
      }
      int n = steps.size();
      if (n >= 1 && "not".equals(steps.get(n - 1))) {
        steps.remove(n - 1);
      } else if (n >= 2
          && steps.get(n - 1) instanceof Integer
          && STEPS.contains(steps.get(n - 2))) {
        steps.subList(n - 2, n).clear();
      } else {
        return null;
      }
    }
  }

  private static String generic(Error e, JsonNode arg) {
    JsonNode v = e.getInstanceNode();
    String got =
        v == null || !v.isValueNode()
            ? ""
            : v.isNumber() ? ", got " + v.asText() : ", got '" + v.asText() + "'";
    return switch (e.getKeyword()) {
      case "type" -> "must be " + typeNames(arg) + got;
      case "minimum" -> "must be at least " + arg.asText() + got;
      case "maximum" -> "must be at most " + arg.asText() + got;
      case "minItems" -> "must list at least " + arg.asText();
      case "maxItems" -> "must list at most " + arg.asText();
      case "minLength" -> "must be a non-empty string";
      case "minProperties" -> "must not be empty";
      default -> {
        String m = e.getMessage();
        yield m.startsWith(": ") ? m.substring(2) : m;
      }
    };
  }

  private static String typeNames(JsonNode types) {
    var names = new ArrayList<String>();
    (types.isArray() ? types : Json.MAPPER.createArrayNode().add(types))
        .forEach(
            t ->
                names.add(
                    switch (t.asText()) {
                      case "object" -> "a mapping";
                      case "array" -> "a list";
                      case "integer" -> "a whole number";
                      case "number" -> "a number";
                      case "boolean" -> "true or false";
                      default -> "a " + t.asText().toLowerCase(Locale.ROOT);
                    }));
    return String.join(" or ", names);
  }

  /** The schema object holding a failed keyword (its location minus the keyword). */
  private JsonNode owner(List<Object> at) {
    return node(at.subList(0, Math.max(0, at.size() - 1)));
  }

  private JsonNode node(List<Object> steps) {
    JsonNode n = raw;
    for (Object s : steps) {
      n = s instanceof Integer i ? n.path(i) : n.path((String) s);
    }
    return n;
  }

  private static List<Object> segments(NodePath p) {
    var out = new ArrayList<>();
    for (int i = 0; p != null && i < p.getNameCount(); i++) {
      out.add(p.getElement(i));
    }
    return out;
  }

  /** "entries[1].zones[0]", the way the parsers name places. */
  public static String path(NodePath p) {
    var sb = new StringBuilder();
    for (Object s : segments(p)) {
      if (s instanceof Integer i) {
        sb.append('[').append(i).append(']');
      } else {
        sb.append(sb.isEmpty() ? "" : ".").append(s);
      }
    }
    return sb.toString();
  }

  private static String join(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  /**
   * Draft 2020-12 as the validator's own dialect defines it (same IRI, keywords, vocabularies),
   * except for the format checkers: the schema uses no {@code format}, and building the standard
   * dialect loads all of them (e-mail, IDN host names, IRIs ... ~35 classes) at the first parse, a
   * cold-start cost ({@code PlanSchemaTest} and {@code PolicySchemaTest} fail if the schema starts
   * using {@code format}). Plus the two message keywords editors read (VS Code,
   * yaml-language-server), declared so the validator neither warns about them nor treats them as
   * assertions.
   */
  public static Dialect dialect() {
    var vocabularies = new LinkedHashMap<String, Boolean>();
    for (String v :
        List.of(
            "core",
            "applicator",
            "unevaluated",
            "validation",
            "meta-data",
            "format-annotation",
            "content")) {
      vocabularies.put("https://json-schema.org/draft/2020-12/vocab/" + v, true);
    }
    return Dialect.builder("https://json-schema.org/draft/2020-12/schema")
        .specificationVersion(SpecificationVersion.DRAFT_2020_12)
        .idKeyword("$id")
        .keywords(KeywordType.getKeywords(SpecificationVersion.DRAFT_2020_12))
        .keyword(new NonValidationKeyword("definitions"))
        .vocabularies(vocabularies)
        .keyword(new NonValidationKeyword("errorMessage"))
        .keyword(new NonValidationKeyword("patternErrorMessage"))
        .build();
  }

  private static JsonNode read(String resource) {
    try (InputStream in = DocumentSchema.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            resource + " is not on the classpath (the build copies it)");
      }
      return Json.MAPPER.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

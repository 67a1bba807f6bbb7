package io.gpufleet.testkit.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;

/**
 * A JSON Schema the repository publishes under {@code schemas/} (for editors and for the function
 * that validates with it), as the schema tests read it: compiled under its own {@code $id}, checked
 * against the draft 2020-12 meta-schema, and the copy a function finds on its class path.
 */
public record PublishedSchema(Path file) {
  private static final String DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

  /** The schema compiled as published, its {@code $id} as its location. */
  public Schema compiled() throws IOException {
    JsonNode published = Json.MAPPER.readTree(file.toFile());
    return registry().getSchema(SchemaLocation.of(published.path("$id").asText()), published);
  }

  /** What the draft 2020-12 meta-schema finds wrong with the published schema (empty: valid). */
  public List<Error> metaSchemaErrors() throws IOException {
    return registry()
        .getSchema(SchemaLocation.of(DRAFT_2020_12))
        .validate(Json.MAPPER.readTree(file.toFile()));
  }

  /** The bytes of {@code resource} on {@code loader}'s class path, or null when it is not there. */
  public static byte[] classpathCopy(ClassLoader loader, String resource) throws IOException {
    try (InputStream in = loader.getResourceAsStream(resource)) {
      return in == null ? null : in.readAllBytes();
    }
  }

  private static SchemaRegistry registry() {
    return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
  }
}

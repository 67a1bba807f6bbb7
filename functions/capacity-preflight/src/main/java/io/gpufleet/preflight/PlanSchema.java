package io.gpufleet.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.dialect.Dialect;
import io.gpufleet.core.schema.DocumentSchema;
import java.util.List;

/**
 * The structural half of plan validation: {@code schemas/preflight-plan.schema.json} (see {@link
 * DocumentSchema}).
 */
final class PlanSchema {
  static final String RESOURCE = "schemas/preflight-plan.schema.json";
  private static final DocumentSchema SCHEMA = DocumentSchema.load(RESOURCE);

  private PlanSchema() {}

  /** Every structural problem of the plan {@code document}, in document order. */
  static List<String> problems(JsonNode document) {
    return SCHEMA.problems(document);
  }

  static Dialect dialect() {
    return DocumentSchema.dialect();
  }
}

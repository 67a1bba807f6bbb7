package io.gpufleet.schedule.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.dialect.Dialect;
import io.gpufleet.core.schema.DocumentSchema;
import java.util.List;

/**
 * The structural half of policy validation: {@code schemas/schedule-policy.schema.json} (see {@link
 * DocumentSchema}).
 */
final class PolicySchema {
  static final String RESOURCE = "schemas/schedule-policy.schema.json";
  private static final DocumentSchema SCHEMA = DocumentSchema.load(RESOURCE);

  private PolicySchema() {}

  /** Every structural problem of the policy {@code document}, in document order. */
  static List<String> problems(JsonNode document) {
    return SCHEMA.problems(document);
  }

  static Dialect dialect() {
    return DocumentSchema.dialect();
  }
}

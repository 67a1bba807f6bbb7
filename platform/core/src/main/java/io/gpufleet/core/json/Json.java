package io.gpufleet.core.json;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.UncheckedIOException;

/**
 * The one configured Jackson mapper (JSON) (YAML lives in {@link Yaml}, which not every function
 * ships).
 */
public final class Json {
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

  /** Reads one whole JSON document: trailing data (a second document, stray text) is an error. */
  private static final com.fasterxml.jackson.databind.ObjectReader PAYLOAD =
      MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private Json() {}

  /**
   * A trigger payload as a tree, refusing anything after the first JSON document: two documents
   * back to back must not be half-acted on.
   */
  public static com.fasterxml.jackson.databind.JsonNode readPayload(byte[] payload)
      throws java.io.IOException {
    return PAYLOAD.readTree(payload);
  }

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String writePretty(Object value) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}

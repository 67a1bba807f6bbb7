package io.gpufleet.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PowertoolsJsonEncoderTest {
  static final ObjectMapper MAPPER = new ObjectMapper();
  final LoggerContext context = new LoggerContext();

  {
    context.setMDCAdapter(new LogbackMDCAdapter()); // an empty MDC, as outside an invocation
  }

  final PowertoolsJsonEncoder encoder = new PowertoolsJsonEncoder();

  LoggingEvent event(Level level, String message, Throwable thrown, Object... args) {
    var event =
        new LoggingEvent(
            "test", context.getLogger("io.gpufleet.Test"), level, message, thrown, args);
    event.setTimeStamp(1_764_585_368_513L); // 2025-12-01T10:36:08.513Z
    return event;
  }

  JsonNode encode(LoggingEvent event) throws Exception {
    String text = new String(encoder.encode(event), StandardCharsets.UTF_8);
    assertThat(text).endsWith("\n");
    assertThat(text.strip()).doesNotContain("\n");
    return MAPPER.readTree(text);
  }

  /** The MDC PowertoolsLogging.withLogging sets for an invocation (and one entry of our own). */
  static Map<String, String> invocationMdc() {
    var mdc = new LinkedHashMap<String, String>();
    mdc.put("function_name", "interruption-drain");
    mdc.put("function_version", "$LATEST");
    mdc.put("function_arn", "arn:aws:lambda:us-east-1:123456789012:function:interruption-drain");
    mdc.put("function_memory_size", "3008");
    mdc.put("function_request_id", "9b1a-req");
    mdc.put("cold_start", "true");
    mdc.put("xray_trace_id", "1-5759e988-bd862e3fe1be46a994272793");
    mdc.put("sampling_rate", "0.5");
    mdc.put("correlation_id", "corr-1");
    mdc.put("service", "gpufleet");
    mdc.put("node", "ip-10-0-0-1");
    return mdc;
  }

  @Test
  void anInvocationLineCarriesTheContextTheStructuredArgumentsAndTheError() throws Exception {
    var failure =
        new IllegalStateException("kube \"api\" down\n\tretry", new RuntimeException("io"));
    var event =
        event(
            Level.WARN,
            "cost {} for {}",
            failure,
            "OK",
            "prod",
            entry("outcome", MAPPER.readTree("{\"status\":\"OK\",\"pods\":[1,2]}")),
            entry("attempt", 3));
    event.setMDCPropertyMap(invocationMdc());

    JsonNode line = encode(event);

    assertThat(line.get("level").asText()).isEqualTo("WARN");
    assertThat(line.get("message").asText()).isEqualTo("cost OK for prod");
    assertThat(line.at("/error/message").asText()).isEqualTo("kube \"api\" down\n\tretry");
    assertThat(line.at("/error/name").asText()).isEqualTo("java.lang.IllegalStateException");
    assertThat(line.at("/error/stack").asText())
        .startsWith("java.lang.IllegalStateException: kube \"api\" down")
        .contains("\tat io.gpufleet.logging.PowertoolsJsonEncoderTest.")
        .contains("Caused by: java.lang.RuntimeException: io");
    assertThat(line.get("cold_start").isBoolean()).isTrue();
    assertThat(line.get("cold_start").asBoolean()).isTrue();
    assertThat(line.get("function_memory_size").isInt()).isTrue();
    assertThat(line.get("function_memory_size").asInt()).isEqualTo(3008);
    assertThat(line.get("sampling_rate").isNumber()).isTrue();
    assertThat(line.get("sampling_rate").asDouble()).isEqualTo(0.5);
    assertThat(line.get("function_name").asText()).isEqualTo("interruption-drain");
    assertThat(line.get("function_version").asText()).isEqualTo("$LATEST");
    assertThat(line.get("function_arn").asText()).endsWith(":function:interruption-drain");
    assertThat(line.get("function_request_id").asText()).isEqualTo("9b1a-req");
    assertThat(line.get("xray_trace_id").asText()).isEqualTo("1-5759e988-bd862e3fe1be46a994272793");
    assertThat(line.get("correlation_id").asText()).isEqualTo("corr-1");
    assertThat(line.get("service").asText()).isEqualTo("gpufleet");
    assertThat(line.get("timestamp").asText()).isEqualTo("2025-12-01T10:36:08.513Z");
    assertThat(line.get("node").asText()).isEqualTo("ip-10-0-0-1");
    assertThat(line.get("outcome"))
        .isEqualTo(MAPPER.readTree("{\"status\":\"OK\",\"pods\":[1,2]}"));
    assertThat(line.get("attempt").asInt()).isEqualTo(3);
    // the template's order: level and message first (the jar smoke test greps for that pair)
    assertThat(fieldNames(line).subList(0, 3)).containsExactly("level", "message", "error");
  }

  @Test
  void outsideAnInvocationTheStringContextFieldsAreNullAndTheTypedOnesAbsent() throws Exception {
    var event = event(Level.INFO, "primed {} clients", null, 4);
    event.setMDCPropertyMap(Map.of("sampling_rate", "0.0")); // no sampling: no field, as before
    JsonNode line = encode(event);

    assertThat(line.get("message").asText()).isEqualTo("primed 4 clients");
    for (String field :
        List.of("function_arn", "function_name", "function_request_id", "function_version")) {
      assertThat(line.get(field).isNull()).as(field).isTrue();
    }
    assertThat(line.get("service").isNull()).isTrue();
    assertThat(line.has("error")).isFalse();
    assertThat(line.has("cold_start")).isFalse();
    assertThat(line.has("function_memory_size")).isFalse();
    assertThat(line.has("sampling_rate")).isFalse();
    assertThat(line.has("xray_trace_id")).isFalse();
    assertThat(fieldNames(line))
        .containsExactly(
            "level",
            "message",
            "function_arn",
            "function_name",
            "function_request_id",
            "function_version",
            "service",
            "timestamp");
  }

  @Test
  void controlCharactersAndQuotesInMessagesAndMdcStayValidJson() throws Exception {
    String nasty = "a\u0001b\u001fc \"q\" \\ \u2028 é\r\n";
    var event = event(Level.ERROR, "{}", null, nasty);
    event.setMDCPropertyMap(Map.of("service", nasty, "extra\"key", nasty));

    JsonNode line = encode(event);

    assertThat(line.get("message").asText()).isEqualTo(nasty);
    assertThat(line.get("service").asText()).isEqualTo(nasty);
    assertThat(line.get("extra\"key").asText()).isEqualTo(nasty);
  }

  static List<String> fieldNames(JsonNode node) {
    var names = new java.util.ArrayList<String>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}

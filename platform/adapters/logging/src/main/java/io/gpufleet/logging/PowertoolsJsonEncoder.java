package io.gpufleet.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.Set;
import software.amazon.lambda.powertools.logging.argument.StructuredArgument;
import software.amazon.lambda.powertools.logging.internal.JsonSerializer;
import software.amazon.lambda.powertools.logging.internal.PowertoolsLoggedFields;

/**
 * One JSON object per log event and line, in the layout of Powertools' {@code
 * LambdaJsonLayout.json} (the log4j template the functions used before): {@code level}, {@code
 * message}, {@code error} (message, class name, stack trace) when there is a throwable, the Lambda
 * context fields that Powertools' {@code withLogging} puts in the MDC, {@code timestamp}, then
 * every other MDC entry and every {@link StructuredArgument} among the event's arguments as fields
 * of their own.
 *
 * <p>Like the template, the string context fields ({@code function_arn}, {@code function_name},
 * {@code function_request_id}, {@code function_version}, {@code service}) are written as {@code
 * null} outside an invocation, the typed ones ({@code cold_start} boolean, {@code
 * function_memory_size} integer, {@code sampling_rate} number when above 0, {@code xray_trace_id},
 * {@code correlation_id}) only when present. Jackson writes and escapes every field; structured
 * arguments are rendered by Powertools' own serializer, as its log4j resolver did.
 */
public final class PowertoolsJsonEncoder extends EncoderBase<ILoggingEvent> {
  private static final JsonFactory JSON = new JsonFactory();
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
  private static final Set<String> POWERTOOLS_FIELDS =
      Set.copyOf(PowertoolsLoggedFields.stringValues());

  @Override
  public byte[] headerBytes() {
    return null;
  }

  @Override
  public byte[] footerBytes() {
    return null;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return (line(event) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /** The event as one JSON object, without the line end. */
  public String line(ILoggingEvent event) {
    var out = new StringWriter(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      Map<String, String> mdc = event.getMDCPropertyMap();
      g.writeStartObject();
      g.writeStringField("level", event.getLevel().toString());
      g.writeStringField("message", event.getFormattedMessage());
      IThrowableProxy thrown = event.getThrowableProxy();
      if (thrown != null) {
        g.writeObjectFieldStart("error");
        g.writeStringField("message", thrown.getMessage());
        g.writeStringField("name", thrown.getClassName());
        g.writeStringField("stack", stackTrace(thrown));
        g.writeEndObject();
      }
      String coldStart = mdc.get(name(PowertoolsLoggedFields.FUNCTION_COLD_START));
      if (coldStart != null) {
        g.writeBooleanField("cold_start", Boolean.parseBoolean(coldStart));
      }
      writeString(g, mdc, PowertoolsLoggedFields.FUNCTION_ARN);
      String memory = mdc.get(name(PowertoolsLoggedFields.FUNCTION_MEMORY_SIZE));
      if (memory != null) {
        g.writeNumberField("function_memory_size", Integer.parseInt(memory));
      }
      writeString(g, mdc, PowertoolsLoggedFields.FUNCTION_NAME);
      writeString(g, mdc, PowertoolsLoggedFields.FUNCTION_REQUEST_ID);
      writeString(g, mdc, PowertoolsLoggedFields.FUNCTION_VERSION);
      String samplingRate = mdc.get(name(PowertoolsLoggedFields.SAMPLING_RATE));
      if (samplingRate != null && Float.parseFloat(samplingRate) > 0) {
        g.writeNumberField("sampling_rate", Float.parseFloat(samplingRate));
      }
      writeString(g, mdc, PowertoolsLoggedFields.SERVICE);
      g.writeStringField("timestamp", TIMESTAMP.format(Instant.ofEpochMilli(event.getTimeStamp())));
      writeIfPresent(g, mdc, PowertoolsLoggedFields.FUNCTION_TRACE_ID);
      writeIfPresent(g, mdc, PowertoolsLoggedFields.CORRELATION_ID);
      for (var e : mdc.entrySet()) {
        if (!POWERTOOLS_FIELDS.contains(e.getKey())) {
          g.writeStringField(e.getKey(), e.getValue());
        }
      }
      Object[] args = event.getArgumentArray();
      if (args != null) {
        for (Object arg : args) {
          if (arg instanceof StructuredArgument structured) {
            g.writeRaw(',');
            g.writeRaw(render(structured));
          }
        }
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the log event as JSON", e);
    }
    return out.toString();
  }

  /** {@code "key":value} of a structured argument, by Powertools' serializer (as it logs them). */
  private static String render(StructuredArgument argument) throws IOException {
    var text = new StringBuilder();
    try (var serializer = new JsonSerializer(text)) {
      argument.writeTo(serializer);
    }
    return text.toString();
  }

  private static String stackTrace(IThrowableProxy thrown) {
    if (thrown instanceof ThrowableProxy proxy) {
      var text = new StringWriter();
      proxy.getThrowable().printStackTrace(new PrintWriter(text));
      return text.toString();
    }
    return ThrowableProxyUtil.asString(thrown);
  }

  private static void writeString(
      JsonGenerator g, Map<String, String> mdc, PowertoolsLoggedFields field) throws IOException {
    g.writeStringField(name(field), mdc.get(name(field)));
  }

  private static void writeIfPresent(
      JsonGenerator g, Map<String, String> mdc, PowertoolsLoggedFields field) throws IOException {
    String value = mdc.get(name(field));
    if (value != null) {
      g.writeStringField(name(field), value);
    }
  }

  private static String name(PowertoolsLoggedFields field) {
    return field.getName();
  }
}

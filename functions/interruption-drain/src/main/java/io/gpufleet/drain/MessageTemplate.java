package io.gpufleet.drain;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.PodReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The text of the webhook/SNS summary, with {@code {placeholder}}s filled from the outcome. Parsed
 * at init: an unknown placeholder or an unbalanced brace is a precise error. {@code {{} and {@code
 * }}} write literal braces.
 */
public final class MessageTemplate {
  /** Every placeholder and how it is filled. */
  static final Map<String, Function<DrainOutcome, String>> FIELDS = fields();

  private final String text;
  private final List<Object> parts; // String literal or Function

  private MessageTemplate(String text, List<Object> parts) {
    this.text = text;
    this.parts = parts;
  }

  private static Map<String, Function<DrainOutcome, String>> fields() {
    var m = new LinkedHashMap<String, Function<DrainOutcome, String>>();
    m.put("kind", DrainOutcome::kind);
    m.put("status", o -> String.valueOf(o.status()));
    m.put("node", DrainOutcome::node);
    m.put("instance", DrainOutcome::instanceId);
    m.put("cluster", DrainOutcome::cluster);
    m.put("event", DrainOutcome::eventId);
    m.put("message", DrainOutcome::message);
    m.put("evicted", o -> String.valueOf(o.podsEvicted() == null ? 0 : o.podsEvicted().size()));
    m.put("left", o -> String.valueOf(o.podsNotEvicted() == null ? 0 : o.podsNotEvicted().size()));
    m.put(
        "podsLeft",
        o ->
            o.podsNotEvicted() == null
                ? ""
                : String.join(", ", o.podsNotEvicted().stream().map(PodReport::pod).toList()));
    m.put("deadline", o -> o.deadline() == null ? "" : o.deadline().toString());
    m.put("deadlineMet", o -> o.deadlineMet() == null ? "" : o.deadlineMet() ? "met" : "missed");
    m.put(
        "hookResult",
        o -> o.lifecycle() == null || o.lifecycle().result() == null ? "" : o.lifecycle().result());
    return Map.copyOf(m);
  }

  public static Set<String> placeholders() {
    return FIELDS.keySet();
  }

  /** Parses {@code text} for setting {@code name}. */
  public static MessageTemplate parse(String name, String text) {
    var parts = new ArrayList<Object>();
    var literal = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '{' && i + 1 < text.length() && text.charAt(i + 1) == '{') {
        literal.append('{');
        i++;
      } else if (c == '}' && i + 1 < text.length() && text.charAt(i + 1) == '}') {
        literal.append('}');
        i++;
      } else if (c == '{') {
        int end = text.indexOf('}', i);
        if (end < 0) {
          throw new ConfigException(
              name + ": '{' at position " + i + " is not closed (write {{ for a literal brace)");
        }
        String field = text.substring(i + 1, end).trim();
        var fn = FIELDS.get(field);
        if (fn == null) {
          throw new ConfigException(
              name
                  + ": unknown placeholder {"
                  + field
                  + "} at position "
                  + i
                  + " (known: "
                  + FIELDS.keySet().stream().sorted().toList()
                  + ")");
        }
        if (!literal.isEmpty()) {
          parts.add(literal.toString());
          literal.setLength(0);
        }
        parts.add(fn);
        i = end;
      } else if (c == '}') {
        throw new ConfigException(
            name + ": '}' at position " + i + " has no opening '{' (write }} for a literal brace)");
      } else {
        literal.append(c);
      }
    }
    if (!literal.isEmpty()) {
      parts.add(literal.toString());
    }
    return new MessageTemplate(text, List.copyOf(parts));
  }

  @SuppressWarnings("unchecked")
  public String render(DrainOutcome o) {
    var sb = new StringBuilder();
    for (Object p : parts) {
      if (p instanceof String s) {
        sb.append(s);
      } else {
        String v = ((Function<DrainOutcome, String>) p).apply(o);
        sb.append(v == null ? "" : v);
      }
    }
    return sb.toString();
  }

  public String text() {
    return text;
  }
}

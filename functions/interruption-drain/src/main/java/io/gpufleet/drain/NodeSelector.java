package io.gpufleet.drain;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.k8s.LabelSelectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A label selector in kubectl's syntax ({@code a=b,c!=d,e in (f,g),h notin (i),j,!k}), parsed once
 * at init with a precise error, evaluated as the API server does.
 */
public record NodeSelector(String text, LabelSelector selector) {
  private static final Pattern KEY =
      Pattern.compile(
          "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  private static final Pattern VALUE =
      Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");
  private static final Pattern SET =
      Pattern.compile("(\\S+)\\s+(in|notin)\\s*\\(([^()]*)\\)", Pattern.CASE_INSENSITIVE);

  public boolean matches(Map<String, String> labels) {
    return LabelSelectors.matches(selector, labels);
  }

  /** Parses {@code text} for the setting {@code name}; every mistake names the offending part. */
  public static NodeSelector parse(String name, String text) {
    var requirements = new ArrayList<LabelSelectorRequirement>();
    for (String part : split(name, text)) {
      String p = part.trim();
      if (p.isEmpty()) {
        throw new ConfigException(name + "='" + text + "' has an empty requirement");
      }
      var set = SET.matcher(p);
      if (set.matches()) {
        var values = new ArrayList<String>();
        for (String v : set.group(3).split(",")) {
          values.add(value(name, p, v.trim()));
        }
        requirements.add(
            req(
                key(name, p, set.group(1)),
                set.group(2).equalsIgnoreCase("in") ? "In" : "NotIn",
                values));
      } else if (p.contains("!=")) {
        String[] kv = p.split("!=", 2);
        requirements.add(
            req(key(name, p, kv[0].trim()), "NotIn", List.of(value(name, p, kv[1].trim()))));
      } else if (p.contains("=")) {
        String[] kv = p.split("==?", 2);
        requirements.add(
            req(key(name, p, kv[0].trim()), "In", List.of(value(name, p, kv[1].trim()))));
      } else if (p.startsWith("!")) {
        requirements.add(req(key(name, p, p.substring(1).trim()), "DoesNotExist", null));
      } else {
        requirements.add(req(key(name, p, p), "Exists", null));
      }
    }
    var selector = new LabelSelector();
    selector.setMatchExpressions(requirements);
    return new NodeSelector(text, selector);
  }

  /** Splits on commas outside parentheses. */
  private static List<String> split(String name, String text) {
    var out = new ArrayList<String>();
    int depth = 0;
    var current = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
        if (depth < 0) {
          throw new ConfigException(name + "='" + text + "' has an unmatched ')'");
        }
      }
      if (c == ',' && depth == 0) {
        out.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    if (depth != 0) {
      throw new ConfigException(name + "='" + text + "' has an unclosed '('");
    }
    out.add(current.toString());
    return out;
  }

  private static String key(String name, String part, String key) {
    int slash = key.indexOf('/');
    if (!KEY.matcher(key).matches() || slash > 253 || key.length() - slash - 1 > 63) {
      throw new ConfigException(
          name + ": '" + key + "' in '" + part + "' is not a valid label key");
    }
    return key;
  }

  private static String value(String name, String part, String value) {
    if (!VALUE.matcher(value).matches() || value.length() > 63) {
      throw new ConfigException(
          name + ": '" + value + "' in '" + part + "' is not a valid label value");
    }
    return value;
  }

  private static LabelSelectorRequirement req(String key, String op, List<String> values) {
    var r = new LabelSelectorRequirement();
    r.setKey(key);
    r.setOperator(op);
    r.setValues(values);
    return r;
  }
}

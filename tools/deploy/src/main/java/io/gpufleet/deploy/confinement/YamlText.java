package io.gpufleet.deploy.confinement;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Writes the manifests in the project's hand-written style: block maps, lists of scalars in flow
 * style, {@link Literal} as a {@code |-} block (CEL expressions), {@link Folded} as a {@code >-}
 * block (messages, folded at single spaces so they read back unchanged).
 */
final class YamlText {
  /** Text kept line by line (a {@code |-} block). */
  record Literal(String text) {}

  /** One line of text written folded at spaces (a {@code >-} block). */
  record Folded(String text) {}

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./][A-Za-z0-9_./:-]*");
  private static final Pattern NOT_PLAIN =
      Pattern.compile("(?i)true|false|yes|no|on|off|null|~|[-+]?[0-9][0-9._:eE+-]*|.*:$");
  private static final int WIDTH = 100;

  private YamlText() {}

  /** The YAML of one document (a map). */
  static String document(Map<String, ?> doc) {
    var out = new StringBuilder();
    map(out, doc, 0);
    return out.toString();
  }

  /** {@code text} as YAML comment lines ({@code # ...}), blank lines as {@code #}. */
  static String comment(String text) {
    var out = new StringBuilder();
    for (String line : text.stripTrailing().split("\n", -1)) {
      out.append(line.isBlank() ? "#" : "# " + line.stripTrailing()).append('\n');
    }
    return out.toString();
  }

  private static void map(StringBuilder out, Map<String, ?> m, int indent) {
    for (var e : m.entrySet()) {
      if (e.getValue() == null) {
        continue;
      }
      out.append(" ".repeat(indent)).append(scalar(e.getKey()));
      value(out, e.getValue(), indent, ":");
    }
  }

  private static void value(StringBuilder out, Object v, int indent, String lead) {
    if (v instanceof Map<?, ?> m) {
      if (m.isEmpty()) {
        out.append(lead).append(" {}\n");
        return;
      }
      out.append(lead).append('\n');
      @SuppressWarnings("unchecked")
      var typed = (Map<String, ?>) m;
      map(out, typed, indent + 2);
    } else if (v instanceof List<?> l) {
      if (l.stream().noneMatch(x -> x instanceof Map || x instanceof List)) {
        out.append(lead).append(" [");
        for (int i = 0; i < l.size(); i++) {
          out.append(i == 0 ? "" : ", ").append(scalar(l.get(i)));
        }
        out.append("]\n");
        return;
      }
      out.append(lead).append('\n');
      for (Object item : l) {
        out.append(" ".repeat(indent + 2)).append("- ");
        if (item instanceof Map<?, ?> im) {
          var sub = new StringBuilder();
          @SuppressWarnings("unchecked")
          var typed = (Map<String, ?>) im;
          map(sub, typed, indent + 4);
          out.append(sub.substring(indent + 4));
        } else {
          out.append(scalar(item)).append('\n');
        }
      }
    } else if (v instanceof Literal lit) {
      out.append(lead).append(" |-\n");
      for (String line : lit.text().split("\n", -1)) {
        out.append(" ".repeat(indent + 2)).append(line).append('\n');
      }
    } else if (v instanceof Folded f && f.text().length() + indent > WIDTH - 20) {
      out.append(lead).append(" >-\n");
      var line = new StringBuilder();
      for (String word : f.text().split(" ", -1)) {
        if (line.length() > 0 && indent + 2 + line.length() + 1 + word.length() > WIDTH) {
          out.append(" ".repeat(indent + 2)).append(line).append('\n');
          line.setLength(0);
        } else if (line.length() > 0) {
          line.append(' ');
        }
        line.append(word);
      }
      out.append(" ".repeat(indent + 2)).append(line).append('\n');
    } else if (v instanceof Folded f) {
      out.append(lead).append(' ').append(scalar(f.text())).append('\n');
    } else {
      out.append(lead).append(' ').append(scalar(v)).append('\n');
    }
  }

  private static String scalar(Object v) {
    if (v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    String s = String.valueOf(v);
    if (PLAIN.matcher(s).matches() && !NOT_PLAIN.matcher(s).matches()) {
      return s;
    }
    var q = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> q.append("\\\"");
        case '\\' -> q.append("\\\\");
        case '\n' -> q.append("\\n");
        default -> q.append(c);
      }
    }
    return q.append('"').toString();
  }
}

package io.gpufleet.cli;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table with aligned columns. */
final class Table {
  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... headers) {
    this.headers = List.of(headers);
  }

  void add(Object... cells) {
    var row = new ArrayList<String>();
    for (Object c : cells) {
      row.add(c == null ? "-" : c.toString());
    }
    rows.add(row);
  }

  String render() {
    int[] width = new int[headers.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = headers.get(i).length();
      for (var r : rows) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    var sb = new StringBuilder();
    line(sb, headers, width);
    for (var r : rows) {
      line(sb, r, width);
    }
    return sb.toString();
  }

  private static void line(StringBuilder sb, List<String> cells, int[] width) {
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      sb.append(c);
      if (i < cells.size() - 1) {
        sb.append(" ".repeat(width[i] - c.length() + 2));
      }
    }
    sb.append('\n');
  }
}

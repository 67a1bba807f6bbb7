package io.gpufleet.cli;

import io.gpufleet.core.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The named queries over the FOCUS files (deploy/queries/NAME.sql, bundled into the CLI; the same
 * files are Athena's named queries in template.yaml), run by DuckDB in process over a directory of
 * FOCUS files as table {@code focus} — with the partition columns billing_period, account and
 * cluster, as Athena's table has them. DuckDB never downloads an extension here.
 */
final class FocusQueries {
  /** Every file of deploy/queries (checked by FocusQueriesTest). */
  static final List<String> NAMES =
      List.of(
          "cost-by-team-month",
          "cost-by-pool-capacity",
          "idle-gpu-cost-by-pool",
          "spot-savings-trend",
          "cost-per-million-tokens");

  /** {@link #NAMES} for picocli (completion and the help text). */
  static final class Names extends ArrayList<String> {
    Names() {
      super(NAMES);
    }
  }

  /** A query's answer: column labels and rows (JDBC objects). */
  record Result(List<String> columns, List<List<Object>> rows) {}

  private FocusQueries() {}

  static String sql(String name) {
    try (InputStream in = FocusQueries.class.getResourceAsStream("queries/" + name + ".sql")) {
      if (in == null) {
        throw new ConfigException("no named query '" + name + "' (named: " + NAMES + ")");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The first comment line of a named query: what it answers. */
  static String title(String name) {
    for (String line : sql(name).split("\n")) {
      if (line.startsWith("-- ")) {
        return line.substring(3).strip();
      }
    }
    return name;
  }

  /** A name of {@link #NAMES}, or SQL as given. */
  static String resolve(String nameOrSql) {
    return NAMES.contains(nameOrSql) ? sql(nameOrSql) : nameOrSql;
  }

  /** The directory holding the partitions: DIR/focus when DIR is a report bucket's copy. */
  static Path focusDir(Path dir) {
    Path inner = dir.resolve("focus");
    return Files.isDirectory(inner) ? inner : dir;
  }

  static Result run(Path dir, String nameOrSql) throws SQLException {
    Path focus = focusDir(dir);
    if (!Files.isDirectory(focus)) {
      throw new ConfigException("cost query: " + dir + " is not a directory");
    }
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        var st = c.createStatement()) {
      st.execute("SET autoinstall_known_extensions = false");
      st.execute("SET autoload_known_extensions = false");
      st.execute("SET TimeZone = 'UTC'");
      String glob = focus.toAbsolutePath().toString().replace("'", "''") + "/**/*.parquet";
      st.execute(
          "CREATE VIEW focus AS SELECT * FROM read_parquet('"
              + glob
              + "', hive_partitioning = true, hive_types_autocast = false, union_by_name = true)");
      try (var rs = st.executeQuery(resolve(nameOrSql))) {
        var md = rs.getMetaData();
        var columns = new ArrayList<String>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          columns.add(md.getColumnLabel(i));
        }
        var rows = new ArrayList<List<Object>>();
        while (rs.next()) {
          var row = new ArrayList<Object>(columns.size());
          for (int i = 1; i <= columns.size(); i++) {
            row.add(rs.getObject(i));
          }
          rows.add(row);
        }
        return new Result(columns, rows);
      }
    }
  }

  static String table(Result r) {
    var t = new Table(r.columns().toArray(String[]::new));
    r.rows().forEach(row -> t.add(row.toArray()));
    return t.render();
  }

  static String csv(Result r) {
    var sb = new StringBuilder();
    line(sb, r.columns());
    r.rows().forEach(row -> line(sb, row));
    return sb.toString();
  }

  private static void line(StringBuilder sb, List<?> cells) {
    for (int i = 0; i < cells.size(); i++) {
      Object c = cells.get(i);
      String s = c == null ? "" : c.toString();
      if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
        s = "\"" + s.replace("\"", "\"\"") + "\"";
      }
      sb.append(i == 0 ? "" : ",").append(s);
    }
    sb.append('\n');
  }

  static String json(Result r) {
    var out = new ArrayList<java.util.Map<String, Object>>();
    for (var row : r.rows()) {
      var m = new java.util.LinkedHashMap<String, Object>();
      for (int i = 0; i < r.columns().size(); i++) {
        Object v = row.get(i);
        m.put(
            r.columns().get(i),
            v instanceof java.time.temporal.Temporal || v instanceof java.util.Date
                ? v.toString()
                : v);
      }
      out.add(m);
    }
    return io.gpufleet.core.json.Json.writePretty(out);
  }
}

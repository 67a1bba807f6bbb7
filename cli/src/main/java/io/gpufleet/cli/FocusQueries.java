package io.gpufleet.cli;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.schedule.HoldRecords;
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
 * cluster, as Athena's table has them — and the disruption schedule's hold records (DIR/schedule,
 * JSON Lines, {@link HoldRecords}) as table {@code schedule_holds}, with the columns of Athena's
 * table of them. Every hold record is checked first: a malformed one is an error naming its file
 * and line (checked for the queries that read them). DuckDB never downloads an extension here.
 */
final class FocusQueries {
  /** Every file of deploy/queries (checked by FocusQueriesTest). */
  static final List<String> NAMES =
      List.of(
          "cost-by-team-month",
          "cost-by-pool-capacity",
          "idle-gpu-cost-by-pool",
          "spot-savings-trend",
          "cost-per-million-tokens",
          "schedule-savings");

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

  /** The named query that needs the schedule's hold records. */
  static final String SCHEDULE_SAVINGS = "schedule-savings";

  /** The directory of the hold records: DIR/schedule (a report bucket's copy). */
  static Path scheduleDir(Path dir) {
    return dir.resolve("schedule");
  }

  /**
   * The hold records under DIR/schedule, each checked ({@link HoldRecords#check}) and where the
   * table's partitions say it must be; a precise {@link ConfigException} otherwise.
   */
  static List<Path> holdRecords(Path dir) {
    Path root = scheduleDir(dir);
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    var layout =
        java.util.regex.Pattern.compile(
            "billing_period=\\d{4}-\\d{2}/account=\\d{12}/cluster=[0-9A-Za-z][A-Za-z0-9_-]*/[^/]+\\.json");
    var out = new ArrayList<Path>();
    try (var walk = Files.walk(root)) {
      for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
        String rel = root.relativize(f).toString().replace('\\', '/');
        if (!layout.matcher(rel).matches()) {
          throw new ConfigException(
              "schedule record schedule/"
                  + rel
                  + ": not under billing_period=YYYY-MM/account=ID/cluster=NAME/ as *.json");
        }
        HoldRecords.check("schedule/" + rel, Files.readString(f, StandardCharsets.UTF_8));
        out.add(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** DuckDB's type for a hold record column's Athena type. */
  static String duckType(String hiveType) {
    return switch (hiveType) {
      case "string" -> "VARCHAR";
      case "bigint" -> "BIGINT";
      case "int" -> "INTEGER";
      default -> throw new IllegalArgumentException("no DuckDB type for " + hiveType);
    };
  }

  /** The view of the hold records (typed, with their partitions), empty when there are none. */
  static String scheduleView(Path dir, boolean any) {
    if (!any) {
      var cols = new ArrayList<String>();
      for (var c : HoldRecords.COLUMNS) {
        cols.add("CAST(NULL AS " + duckType(c.hiveType()) + ") AS " + c.name());
      }
      for (String p : List.of("billing_period", "account", "cluster")) {
        cols.add("CAST(NULL AS VARCHAR) AS " + p);
      }
      return "CREATE VIEW "
          + HoldRecords.TABLE
          + " AS SELECT "
          + String.join(", ", cols)
          + " WHERE false";
    }
    var cols = new ArrayList<String>();
    for (var c : HoldRecords.COLUMNS) {
      cols.add("'" + c.name() + "': '" + duckType(c.hiveType()) + "'");
    }
    String glob = scheduleDir(dir).toAbsolutePath().toString().replace("'", "''") + "/**/*.json";
    return "CREATE VIEW "
        + HoldRecords.TABLE
        + " AS SELECT * FROM read_json('"
        + glob
        + "', format = 'newline_delimited', columns = {"
        + String.join(", ", cols)
        + "}, hive_partitioning = true, hive_types_autocast = false)";
  }

  static Result run(Path dir, String nameOrSql) throws SQLException {
    Path focus = focusDir(dir);
    if (!Files.isDirectory(focus)) {
      throw new ConfigException("cost query: " + dir + " is not a directory");
    }
    String sql = resolve(nameOrSql);
    // the hold records are checked (and their view made) only for a query that reads them
    boolean usesHolds = sql.toLowerCase(java.util.Locale.ROOT).contains(HoldRecords.TABLE);
    boolean holds = usesHolds && !holdRecords(dir).isEmpty();
    if (usesHolds && !holds && SCHEDULE_SAVINGS.equals(nameOrSql)) {
      throw new ConfigException(
          "cost query "
              + SCHEDULE_SAVINGS
              + ": no schedule records under "
              + scheduleDir(dir)
              + " (the disruption schedule writes them to the report bucket's schedule/ when"
              + " SCHEDULE_RECORDS_BUCKET is set)");
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
      if (usesHolds) {
        st.execute(scheduleView(dir, holds));
      }
      try (var rs = st.executeQuery(sql)) {
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

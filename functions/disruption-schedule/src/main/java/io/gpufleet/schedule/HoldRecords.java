package io.gpufleet.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.config.TeamLabel;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.schedule.model.Change;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.TargetState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the schedule holds down, run by run: after each reconcile, one JSON Lines object under
 * {@code schedule/billing_period=YYYY-MM/account=ID/cluster=NAME/<run>.json} of the report bucket,
 * with a line of kind {@value #RUN} for the run itself and one line per object gpufleet keeps away
 * from its own values (its bookkeeping says so, after this run's writes): Deployments and
 * StatefulSets below their original replicas (with one replica's accelerators and team), and the
 * NodePools, HPAs and ScaledObjects under the policy's settings (recorded, not priced: what those
 * settings saved depends on Karpenter and the autoscalers). The records are level-triggered like
 * the schedule: a hold lasts from the run that saw it to the next run (the named query
 * schedule-savings turns that into GPU-hours and an estimated saving). A repeated tick writes the
 * same key, so it replaces its record.
 */
public final class HoldRecords {
  public static final String PREFIX = "schedule/";

  /** The table of the records: Glue's in template.yaml, the CLI's DuckDB view, the named query. */
  public static final String TABLE = "schedule_holds";

  /** The kind of a run's own line (so the next run's time is known even when nothing is held). */
  public static final String RUN = "(run)";

  /** One column of a record line and its Athena (Hive DDL) type. */
  public record Column(String name, String hiveType) {}

  /**
   * The columns of a line, in order: the Glue table (template.yaml) and the CLI's DuckDB view
   * declare exactly these (TemplateFocusTest).
   */
  public static final List<Column> COLUMNS =
      List.of(
          new Column("run_at", "string"),
          new Column("run_epoch", "bigint"),
          new Column("tick", "string"),
          new Column("schedule_window", "string"),
          new Column("kind", "string"),
          new Column("namespace", "string"),
          new Column("name", "string"),
          new Column("team", "string"),
          new Column("replicas_original", "int"),
          new Column("replicas_held", "int"),
          new Column("gpus_per_replica", "int"));

  static final Set<String> KINDS =
      Set.of(
          RUN, "NodePool", "Deployment", "StatefulSet", "HorizontalPodAutoscaler", "ScaledObject");

  private static final Set<String> REPLICA_KINDS = Set.of("Deployment", "StatefulSet");

  private static final DateTimeFormatter ID =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  /** One held object (replica figures only for Deployments and StatefulSets). */
  public record Hold(
      String kind,
      String namespace,
      String name,
      String team,
      Integer replicasOriginal,
      Integer replicasHeld,
      Integer gpusPerReplica) {}

  private HoldRecords() {}

  static String key(ObjectRef ref) {
    return ref.kind() + "/" + ref.namespace() + "/" + ref.name();
  }

  /**
   * Pure: what is held after a run, from the states it read and the result of each write it made
   * ({@code written} by {@link #key(ObjectRef)}; a failed or dry-run write left the object as
   * read).
   */
  public static List<Hold> after(
      List<TargetState> states, Map<String, Change> written, String teamLabel) {
    var out = new ArrayList<Hold>();
    for (TargetState s : states) {
      Change c = written.get(key(s.ref()));
      boolean managed = s.annotation(Planner.APPLIED) != null;
      JsonNode original;
      JsonNode now;
      if (c != null && c.result() == Change.Result.APPLIED) {
        if (c.action() != Change.Action.APPLY) {
          continue; // restored or released: nothing held any more
        }
        original = managed ? read(s.annotation(Planner.ORIGINAL)) : c.before();
        now = c.after();
      } else if (managed) {
        original = read(s.annotation(Planner.ORIGINAL));
        now = s.fields();
      } else {
        continue;
      }
      if (original == null || !original.isObject()) {
        continue; // unreadable bookkeeping: the planner leaves the object alone and says so
      }
      String kind = s.ref().kind();
      String team = team(s, teamLabel);
      if (!REPLICA_KINDS.contains(kind)) {
        out.add(new Hold(kind, s.ref().namespace(), s.ref().name(), team, null, null, null));
        continue;
      }
      JsonNode from = original.path("replicas");
      JsonNode to = now.path("replicas");
      if (!from.isInt() || !to.isInt() || to.asInt() >= from.asInt()) {
        continue; // not held below its own count
      }
      out.add(
          new Hold(
              kind,
              s.ref().namespace(),
              s.ref().name(),
              team,
              from.asInt(),
              to.asInt(),
              s.pods() == null ? null : s.pods().accelerators()));
    }
    return out;
  }

  private static String team(TargetState s, String teamLabel) {
    if (s.pods() != null && s.pods().labels().containsKey(teamLabel)) {
      return s.pods().labels().get(teamLabel);
    }
    return s.labels() == null ? null : s.labels().get(teamLabel);
  }

  private static JsonNode read(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Json.MAPPER.readTree(text);
    } catch (Exception e) {
      return null;
    }
  }

  /** The key of a run's record: by the tick's scheduled time (a retry replaces it), else by now. */
  public static String key(String account, String cluster, Instant runId) {
    return PREFIX
        + "billing_period="
        + YearMonth.from(runId.atOffset(ZoneOffset.UTC))
        + "/account="
        + account
        + "/cluster="
        + cluster
        + "/"
        + ID.format(runId)
        + ".json";
  }

  /** A run's record: its own line, then one line per hold. */
  public static byte[] lines(Instant at, Instant tick, String window, List<Hold> holds) {
    var sb = new StringBuilder();
    sb.append(Json.write(line(at, tick, window, new Hold(RUN, null, null, null, null, null, null))))
        .append('\n');
    for (Hold h : holds) {
      sb.append(Json.write(line(at, tick, window, h))).append('\n');
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static ObjectNode line(Instant at, Instant tick, String window, Hold h) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("run_at", at.toString());
    o.put("run_epoch", at.getEpochSecond());
    o.put("tick", tick == null ? null : tick.toString());
    o.put("schedule_window", window);
    o.put("kind", h.kind());
    o.put("namespace", h.namespace());
    o.put("name", h.name());
    o.put("team", h.team());
    o.put("replicas_original", h.replicasOriginal());
    o.put("replicas_held", h.replicasHeld());
    o.put("gpus_per_replica", h.gpusPerReplica());
    return o;
  }

  /**
   * Checks a record as the named query needs it; a precise {@link ConfigException} naming {@code
   * source} and the line for anything else (so bad records never turn into a silent zero).
   */
  public static void check(String source, String text) {
    var names = new LinkedHashSet<String>();
    COLUMNS.forEach(c -> names.add(c.name()));
    String runAt = null;
    int runs = 0;
    int n = 0;
    for (String raw : text.split("\n", -1)) {
      n++;
      if (raw.isBlank()) {
        continue;
      }
      String where = "schedule record " + source + " line " + n + ": ";
      JsonNode o;
      try {
        o = Json.MAPPER.readTree(raw);
      } catch (Exception e) {
        throw new ConfigException(where + "not JSON (" + firstLine(e.getMessage()) + ")");
      }
      if (o == null || !o.isObject()) {
        throw new ConfigException(where + "not a JSON object");
      }
      o.fieldNames()
          .forEachRemaining(
              f -> {
                if (!names.contains(f)) {
                  throw new ConfigException(where + "unknown field '" + f + "'");
                }
              });
      String at = text(o, "run_at", where);
      Instant instant;
      try {
        instant = Instant.parse(at);
      } catch (DateTimeParseException e) {
        throw new ConfigException(where + "run_at '" + at + "' is not an ISO-8601 UTC time");
      }
      if (!o.path("run_epoch").canConvertToLong() || !o.path("run_epoch").isIntegralNumber()) {
        throw new ConfigException(where + "run_epoch is missing or not a whole number");
      }
      if (o.get("run_epoch").asLong() != instant.getEpochSecond()) {
        throw new ConfigException(
            where + "run_epoch " + o.get("run_epoch") + " is not run_at " + at + " in seconds");
      }
      if (runAt != null && !runAt.equals(at)) {
        throw new ConfigException(where + "run_at " + at + " differs from the file's " + runAt);
      }
      runAt = at;
      text(o, "schedule_window", where);
      String kind = text(o, "kind", where);
      if (!KINDS.contains(kind)) {
        throw new ConfigException(where + "kind '" + kind + "' is not one of " + KINDS);
      }
      if (kind.equals(RUN)) {
        runs++;
        continue;
      }
      text(o, "name", where);
      if (!REPLICA_KINDS.contains(kind)) {
        for (String f : List.of("replicas_original", "replicas_held", "gpus_per_replica")) {
          if (!o.path(f).isNull() && !o.path(f).isMissingNode()) {
            throw new ConfigException(where + f + " is given for a " + kind + " (not priced)");
          }
        }
        continue;
      }
      text(o, "namespace", where);
      int from = count(o, "replicas_original", where);
      int to = count(o, "replicas_held", where);
      if (to >= from) {
        throw new ConfigException(
            where + "replicas_held " + to + " is not below replicas_original " + from);
      }
      if (!o.path("gpus_per_replica").isNull() && !o.path("gpus_per_replica").isMissingNode()) {
        count(o, "gpus_per_replica", where);
      }
    }
    if (runs != 1) {
      throw new ConfigException(
          "schedule record " + source + ": " + runs + " lines of kind " + RUN + ", not 1");
    }
  }

  private static String text(JsonNode o, String field, String where) {
    JsonNode v = o.path(field);
    if (!v.isTextual() || v.asText().isBlank()) {
      throw new ConfigException(where + field + " is missing or not a string");
    }
    return v.asText();
  }

  private static int count(JsonNode o, String field, String where) {
    JsonNode v = o.path(field);
    if (!v.isInt() || v.asInt() < 0) {
      throw new ConfigException(where + field + " is missing or not a whole number >= 0");
    }
    return v.asInt();
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }

  /** Where and as whom a run's record is written; {@link #OFF} when no bucket is configured. */
  public record Recorder(BlobStorePort store, String accountId, String teamLabel) {
    public static final Recorder OFF = new Recorder(null, null, TeamLabel.DEFAULT);

    public boolean enabled() {
      return store != null;
    }

    /**
     * {@code SCHEDULE_RECORDS_BUCKET} (the report bucket; empty: no records), {@code
     * SCHEDULE_ACCOUNT_ID} (the account partition, 12 digits; the template sets it) and {@code
     * COST_TEAM_LABEL} (the pod label naming the team, the cost report's).
     */
    public static Recorder from(
        Settings env, java.util.function.Function<String, BlobStorePort> s3) {
      String bucket = env.string("SCHEDULE_RECORDS_BUCKET", "");
      String team = TeamLabel.from(env);
      if (bucket.isEmpty()) {
        return new Recorder(null, null, team);
      }
      String account = env.string("SCHEDULE_ACCOUNT_ID", "");
      if (!account.matches("\\d{12}")) {
        throw new ConfigException(
            "SCHEDULE_ACCOUNT_ID='"
                + account
                + "' is not a 12-digit account id"
                + " (SCHEDULE_RECORDS_BUCKET is set)");
      }
      return new Recorder(s3.apply(bucket), account, team);
    }

    /** Writes a run's record; the key it went to. */
    public String write(String cluster, Instant at, Instant tick, String window, List<Hold> holds) {
      String key = key(accountId, cluster, tick == null ? at : tick);
      store.put(key, lines(at, tick, window, holds), "application/x-ndjson");
      return key;
    }
  }
}

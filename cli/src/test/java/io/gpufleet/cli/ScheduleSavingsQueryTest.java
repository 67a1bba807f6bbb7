package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.schedule.HoldRecords;
import io.gpufleet.schedule.HoldRecords.Hold;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The named query schedule-savings over known hold records (written by the schedule's own writer)
 * and known FOCUS prices: the held GPU-hours and the estimated saving are the figures worked out by
 * hand below.
 */
class ScheduleSavingsQueryTest extends CapturedCli {
  static final String ACCOUNT = "111122223333";
  static final String CLUSTER = "c1";

  @TempDir Path dir;

  static final Hold CHAT = new Hold("Deployment", "ml", "chat", "serving", 4, 1, 2);
  static final Hold NOTEBOOK = new Hold("Deployment", "lab", "notebook", null, 2, 0, 1);

  void record(String at, Hold... holds) throws Exception {
    Instant t = Instant.parse(at);
    Path f = dir.resolve(HoldRecords.key(ACCOUNT, CLUSTER, t));
    Files.createDirectories(f.getParent());
    Files.write(f, HoldRecords.lines(t, null, "off-hours", List.of(holds)));
  }

  /**
   * FOCUS rows of November: ml paid 80 for 8 requested GPU-hours ($10), web 30 for 12; an idle row
   * (no GPU requested) is no price. The cluster: 110 for 20 GPU-hours ($5.50).
   */
  @BeforeEach
  void focus() throws Exception {
    Path p = dir.resolve("focus/billing_period=2026-11/account=" + ACCOUNT + "/cluster=" + CLUSTER);
    Files.createDirectories(p);
    try (var c = DriverManager.getConnection("jdbc:duckdb:");
        var st = c.createStatement()) {
      st.execute(
          "COPY (SELECT * FROM (VALUES ('ml', 50.0, 5.0), ('ml', 30.0, 3.0), ('web', 30.0, 12.0),"
              + " ('(idle)', 50.0, 0.0)) t(x_Namespace, EffectiveCost, x_GpuHoursRequested))"
              + " TO '"
              + p.resolve("day.parquet")
              + "' (FORMAT parquet)");
    }
  }

  /**
   * Six runs: two a full hour apart holding chat (3 replicas x 2 GPUs) and notebook (2 x 1), then
   * chat alone for half an hour, then for a three-hour gap (counted as one hour), a run holding
   * nothing, and a last run whose hold has no next run yet (not counted).
   */
  void holds() throws Exception {
    record("2026-11-10T22:00:00Z", CHAT, NOTEBOOK);
    record("2026-11-10T23:00:00Z", CHAT, NOTEBOOK);
    record("2026-11-11T00:00:00Z", CHAT);
    record("2026-11-11T00:30:00Z", CHAT);
    record("2026-11-11T03:30:00Z");
    record("2026-11-11T04:00:00Z", CHAT);
  }

  @Test
  void shouldPriceHeldGpuHoursAtTheNamespacesPriceElseTheClusters() throws Exception {
    holds();

    var r = FocusQueries.run(dir, "schedule-savings");

    assertThat(r.columns())
        .containsExactly(
            "day",
            "schedule_window",
            "team",
            "held_replica_hours",
            "held_gpu_hours",
            "estimated_saving",
            "unpriced_gpu_hours");
    Map<String, List<BigDecimal>> got = new LinkedHashMap<>();
    for (var row : r.rows()) {
      got.put(
          row.get(0) + " " + row.get(1) + " " + row.get(2),
          row.subList(3, 7).stream().map(v -> new BigDecimal(v.toString())).toList());
    }
    assertThat(got.keySet())
        .containsExactly(
            "2026-11-10 off-hours serving",
            "2026-11-10 off-hours lab",
            "2026-11-11 off-hours serving");
    // 22:00-23:00 and 23:00-00:00: 3 replicas x 2 GPUs x 2 h at ml's $10
    assertMoney(got.get("2026-11-10 off-hours serving"), "6", "12", "120.00", "0");
    // notebook: 2 replicas x 1 GPU x 2 h; lab has no FOCUS rows: the cluster's $5.50
    assertMoney(got.get("2026-11-10 off-hours lab"), "4", "4", "22.00", "0");
    // 00:00-00:30 and 00:30 until the next run 3 h later, counted as 1 h: 3 x 2 x 1.5 h at $10
    assertMoney(got.get("2026-11-11 off-hours serving"), "4.5", "9", "90.00", "0");
  }

  static void assertMoney(List<BigDecimal> got, String... want) {
    for (int i = 0; i < want.length; i++) {
      assertThat(got.get(i)).as("column %d", i + 3).isEqualByComparingTo(want[i]);
    }
  }

  @Test
  void shouldLeaveAGpuHourWithNoPriceUnpricedNotFree() throws Exception {
    // a hold in another billing period, where no FOCUS row prices anything
    record("2026-12-01T01:00:00Z", CHAT);
    record("2026-12-01T02:00:00Z");

    var r = FocusQueries.run(dir, "schedule-savings");

    assertThat(r.rows())
        .singleElement()
        .satisfies(
            row -> {
              assertThat(row.get(5)).as("estimated_saving").isNull();
              assertThat(new BigDecimal(row.get(6).toString())).isEqualByComparingTo("6");
            });
  }

  @Test
  void shouldNameTheFileAndLineOfAMalformedRecord() throws Exception {
    holds();
    Path f = dir.resolve(HoldRecords.key(ACCOUNT, CLUSTER, Instant.parse("2026-11-10T23:00:00Z")));
    Files.writeString(f, Files.readString(f).replace("\"replicas_held\":1", "\"replicas_held\":7"));

    assertThatThrownBy(() -> FocusQueries.run(dir, "schedule-savings"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "schedule record schedule/billing_period=2026-11/account=111122223333/cluster=c1/"
                + "20261110T230000Z.json line 2: replicas_held 7 is not below replicas_original 4");
    // the command says so and exits 2, before any answer
    assertThat(run("cost", "query", "schedule-savings", "--from", dir.toString())).isEqualTo(2);
    assertThat(err()).contains("20261110T230000Z.json line 2: replicas_held 7");
    assertThat(out()).doesNotContain("estimated_saving");
    // a query of the FOCUS rows alone still answers
    assertThat(FocusQueries.run(dir, "SELECT count(*) FROM focus").rows().get(0))
        .containsExactly(4L);
  }

  @Test
  void shouldRefuseARecordOutsideItsPartitionsAndAQueryWithoutRecords() throws Exception {
    assertThatThrownBy(() -> FocusQueries.run(dir, "schedule-savings"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("no schedule records under " + dir.resolve("schedule"));
    // other queries run without records
    assertThat(FocusQueries.run(dir, "SELECT count(*) FROM schedule_holds").rows().get(0))
        .containsExactly(0L);
    Path stray = dir.resolve("schedule/run.json");
    Files.createDirectories(stray.getParent());
    Files.writeString(stray, "{}");
    assertThatThrownBy(() -> FocusQueries.run(dir, "schedule-savings"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("schedule record schedule/run.json: not under billing_period=");
  }
}

package io.gpufleet.cost;

import static io.gpufleet.cost.Fixtures.CLUSTER;
import static io.gpufleet.cost.Fixtures.gpuNode;
import static io.gpufleet.cost.Fixtures.instance;
import static io.gpufleet.cost.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.store.MemoryBlobStore;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.cost.focus.FocusColumns;
import io.gpufleet.cost.focus.FocusOutput;
import io.gpufleet.cost.focus.ParquetFile;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.Utilisation;
import io.gpufleet.sim.Recorders;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FOCUS rows a report run writes, read back by DuckDB: where the file goes, its column types,
 * and that the cost of one window's rows adds up to the report's total.
 */
class FocusRowsTest {
  static final String ACCOUNT = "111122223333";
  static final Instant DAY1 = Instant.parse("2026-11-29T00:00:00Z");
  static final Instant DAY2 = Instant.parse("2026-11-30T00:00:00Z");

  final VirtualTime time = new VirtualTime(DAY1);
  final Fixtures.FakeCluster cluster = new Fixtures.FakeCluster();
  final Fixtures.FakeEc2 ec2 = new Fixtures.FakeEc2();
  final Fixtures.FakeSpot spot = new Fixtures.FakeSpot();
  final MemoryBlobStore store = new MemoryBlobStore();

  @TempDir Path dir;

  CostReportService service(FocusOutput focus) {
    return new CostReportService(
            CostSettings.defaults(CLUSTER),
            Fixtures.REGION,
            cluster,
            ec2,
            spot,
            new StaticPrices(),
            store,
            CostReporting.reporter(
                new Recorders.RecordingMetrics(),
                new Recorders.RecordingPublisher(),
                new Recorders.RecordingNotifier()),
            time.clock())
        .withFocus(focus);
  }

  /** An On-Demand p5 shared by two teams (and idle), a Spot g6e with one pod. */
  void fleet() {
    Instant launch = DAY1.minus(Duration.ofHours(6));
    cluster.nodes.add(gpuNode("od", "i-0od", "p5.48xlarge", 8, "on-demand", launch));
    cluster.nodes.add(gpuNode("sp", "i-0sp", "g6e.12xlarge", 4, "spot", launch));
    cluster.pods.add(pod("ml", "train-0", "od", 4, launch.plusSeconds(60)));
    cluster.pods.add(pod("research", "eval-0", "od", 2, DAY1.plus(Duration.ofHours(5))));
    cluster.pods.add(pod("inference", "vllm-0", "sp", 2, launch.plusSeconds(120)));
    ec2.instances.add(instance("i-0od", "p5.48xlarge", Lifecycle.ON_DEMAND, launch));
    ec2.instances.add(instance("i-0sp", "g6e.12xlarge", Lifecycle.SPOT, launch));
    spot.price("us-east-1a", "g6e.12xlarge", DAY1.minus(Duration.ofDays(1)), "4.10");
    spot.price("us-east-1a", "g6e.12xlarge", DAY1.plus(Duration.ofHours(10)), "3.70");
  }

  CostOutcome lastDay(FocusOutput focus) {
    time.set(DAY2.plus(Duration.ofMinutes(15)));
    var s = service(focus);
    var o = s.run(new CostReportService.Request("last-day", null, false), m -> {});
    last = s.lastReport();
    return o;
  }

  CostReport last;

  static final String KEY =
      "focus/billing_period=2026-11/account=111122223333/cluster=c1/"
          + "last-day_20261129T0000Z_20261130T0000Z.parquet";

  Path written() throws Exception {
    Path f = dir.resolve("window.parquet");
    Files.write(f, store.get(KEY).orElseThrow());
    return f;
  }

  @Test
  void shouldWriteTheWindowUnderItsPartitionAndNameItInTheOutputs() {
    fleet();
    var o = lastDay(FocusOutput.on(ACCOUNT));
    assertThat(o.status()).isEqualTo(CostOutcome.Status.REPORTED);
    assertThat(store.get(KEY)).isPresent();
    assertThat(o.outputs().get("focus")).endsWith(KEY);
  }

  @Test
  void shouldWriteToTheCentralBucketWhenOneIsGiven() {
    fleet();
    var central = new MemoryBlobStore();
    var o = lastDay(FocusOutput.on(ACCOUNT).to(central));
    assertThat(central.get(KEY)).isPresent();
    assertThat(store.get(KEY)).isEmpty();
    assertThat(o.outputs().get("focus")).isEqualTo(central.locate(KEY));
    // the report itself stays in the stack's own bucket
    assertThat(store.keys()).anyMatch(k -> k.endsWith("/cost.json"));
  }

  @Test
  void shouldWriteNoFocusFileWhenOffOrForAnOverlappingWindow() {
    fleet();
    lastDay(FocusOutput.OFF);
    assertThat(store.get(KEY)).isEmpty();
    time.set(DAY2.plus(Duration.ofMinutes(15)));
    var o =
        service(FocusOutput.on(ACCOUNT))
            .run(new CostReportService.Request("24h", null, false), m -> {});
    // a 24h window ending at 00:15 overlaps two daily windows: no FOCUS file for it
    assertThat(o.outputs()).doesNotContainKey("focus");
  }

  @Test
  void shouldHaveTheFocusTypesWhenDuckDbReadsIt() throws Exception {
    fleet();
    lastDay(FocusOutput.on(ACCOUNT));
    var types = new LinkedHashMap<String, String>();
    var nullable = new LinkedHashMap<String, String>();
    query(
        "DESCRIBE SELECT * FROM read_parquet('" + written() + "')",
        rs -> {
          types.put(rs.getString("column_name"), rs.getString("column_type"));
          nullable.put(rs.getString("column_name"), rs.getString("null"));
        });
    assertThat(types.keySet())
        .containsExactlyElementsOf(FocusColumns.ALL.stream().map(c -> c.name()).toList());
    for (var c : FocusColumns.ALL) {
      String want =
          switch (c.kind()) {
            case STRING -> "VARCHAR";
            case JSON -> "JSON";
            case DECIMAL -> "DECIMAL(18,6)";
            case TIMESTAMP -> "TIMESTAMP WITH TIME ZONE";
          };
      assertThat(types.get(c.name())).as(c.name()).isEqualTo(want);
    }
  }

  @Test
  void shouldAddUpToTheReportsTotals() throws Exception {
    fleet();
    lastDay(FocusOutput.on(ACCOUNT));
    var k = last.kpis();
    var got = new ArrayList<Object>();
    query(
        "SELECT count(*), sum(EffectiveCost), sum(ListCost), sum(BilledCost),"
            + " sum(x_GpuHours), sum(x_GpuHoursRequested),"
            + " sum(CASE WHEN PricingCategory = 'Dynamic' THEN ListCost - EffectiveCost END)"
            + " FROM read_parquet('"
            + written()
            + "')",
        rs -> {
          for (int i = 1; i <= 7; i++) {
            got.add(rs.getObject(i));
          }
        });
    assertThat(((Number) got.get(0)).intValue()).isEqualTo(last.rows().size()).isGreaterThan(3);
    assertThat(money(got.get(1))).isEqualByComparingTo(k.totalCost());
    assertThat(money(got.get(2))).isEqualByComparingTo(k.onDemandEquivalentCost());
    assertThat(money(got.get(3))).isEqualByComparingTo(k.totalCost());
    assertThat(((BigDecimal) got.get(4)).doubleValue()).isCloseTo(k.gpuCapacityHours(), within());
    assertThat(((BigDecimal) got.get(5)).doubleValue()).isCloseTo(k.gpuRequestedHours(), within());
    assertThat(money(got.get(6))).isEqualByComparingTo(k.spotSavings());
  }

  @Test
  void shouldDescribeEachRowAsAnAwsComputeUsageCharge() throws Exception {
    fleet();
    lastDay(FocusOutput.on(ACCOUNT));
    var rows = new ArrayList<Map<String, Object>>();
    query(
        "SELECT BillingAccountId, ChargeCategory, ServiceCategory, ProviderName, PricingCategory,"
            + " x_Namespace, x_Team, x_GpuModel, ChargePeriodStart, BillingPeriodStart,"
            + " BillingPeriodEnd, Tags->>'team' AS tag_team, PricingQuantity, ListUnitPrice,"
            + " ListCost FROM read_parquet('"
            + written()
            + "') ORDER BY ResourceId, x_Namespace",
        rs -> {
          var m = new LinkedHashMap<String, Object>();
          for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
            m.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
          }
          rows.add(m);
        });
    assertThat(rows)
        .allSatisfy(
            r -> {
              assertThat(r.get("BillingAccountId")).isEqualTo(ACCOUNT);
              assertThat(r.get("ChargeCategory")).isEqualTo("Usage");
              assertThat(r.get("ServiceCategory")).isEqualTo("Compute");
              assertThat(r.get("ProviderName")).isEqualTo("AWS");
              assertThat(r.get("BillingPeriodStart").toString()).startsWith("2026-11-01");
              assertThat(r.get("BillingPeriodEnd").toString()).startsWith("2026-12-01");
              // PricingQuantity × ListUnitPrice = ListCost (to a cent)
              var q = (BigDecimal) r.get("PricingQuantity");
              var p = (BigDecimal) r.get("ListUnitPrice");
              assertThat(q.multiply(p).subtract((BigDecimal) r.get("ListCost")).abs())
                  .isLessThan(new BigDecimal("0.01"));
            });
    assertThat(rows)
        .extracting(r -> r.get("x_Namespace") + ":" + r.get("PricingCategory"))
        .contains("ml:Standard", "research:Standard", "inference:Dynamic", "(idle):Dynamic");
    assertThat(rows)
        .filteredOn(r -> "ml".equals(r.get("x_Namespace")))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.get("x_Team")).isEqualTo("team-ml");
              assertThat(r.get("tag_team")).isEqualTo("team-ml");
              assertThat(r.get("x_GpuModel")).isEqualTo("H100");
            });
    assertThat(rows)
        .filteredOn(r -> "(idle)".equals(r.get("x_Namespace")))
        .allSatisfy(r -> assertThat(r.get("x_Team")).isNull());
  }

  @Test
  void shouldCarryThePricedTokensOnTheRowsOfTheirPods() throws Exception {
    // Given a pod's own series, a namespace's pod-less series and a series of a pod the report
    // does not know
    fleet();
    cluster.pods.add(pod("inference", "vllm-1", "sp", 1, DAY1.plus(Duration.ofHours(12))));
    UtilisationPort tokens =
        (w, nodes) ->
            new Utilisation(
                "prometheus",
                Map.of(),
                Map.of(),
                List.of(
                    new Utilisation.Tokens("ml", "train-0", "llama-8b", "vllm", 4.0e6),
                    new Utilisation.Tokens("inference", null, "(TGI)", "tgi", 3.0e6),
                    new Utilisation.Tokens("ml", "gone-0", "llama-8b", "vllm", 1.0e6)),
                List.of());
    time.set(DAY2.plus(Duration.ofMinutes(15)));
    var s =
        new CostReportService(
                CostSettings.defaults(CLUSTER),
                Fixtures.REGION,
                cluster,
                ec2,
                spot,
                new StaticPrices(),
                store,
                CostReporting.reporter(
                    new Recorders.RecordingMetrics(),
                    new Recorders.RecordingPublisher(),
                    new Recorders.RecordingNotifier()),
                time.clock(),
                CommitmentPort.none("test"),
                tokens)
            .withFocus(FocusOutput.on(ACCOUNT));
    // When the day is reported
    s.run(new CostReportService.Request("last-day", null, false), m -> {});
    last = s.lastReport();
    // Then each row carries its pod's tokens: the namespace's series split by requested GPU-hours
    var got = new LinkedHashMap<String, double[]>();
    query(
        "SELECT x_Namespace || '/' || x_Pod || ':' || x_Model, sum(x_OutputTokens),"
            + " sum(EffectiveCost) FROM read_parquet('"
            + written()
            + "') WHERE x_OutputTokens IS NOT NULL GROUP BY 1 ORDER BY 1",
        rs -> got.put(rs.getString(1), new double[] {rs.getDouble(2), rs.getDouble(3)}));
    assertThat(got.keySet())
        .containsExactly("inference/vllm-0:(TGI)", "inference/vllm-1:(TGI)", "ml/train-0:llama-8b");
    assertThat(got.get("ml/train-0:llama-8b")[0]).isCloseTo(4.0e6, within());
    double h0 = gpuHours("vllm-0");
    double h1 = gpuHours("vllm-1");
    assertThat(h0).isGreaterThan(h1).isPositive();
    assertThat(got.get("inference/vllm-0:(TGI)")[0]).isCloseTo(3.0e6 * h0 / (h0 + h1), within());
    assertThat(got.get("inference/vllm-1:(TGI)")[0]).isCloseTo(3.0e6 * h1 / (h0 + h1), within());
    // and the rows' cost per million tokens is the report's, namespace by namespace
    for (var t : last.tokens()) {
      var rows =
          got.entrySet().stream().filter(e -> e.getKey().startsWith(t.namespace() + "/")).toList();
      double cost = rows.stream().mapToDouble(e -> e.getValue()[1]).sum();
      double n = rows.stream().mapToDouble(e -> e.getValue()[0]).sum();
      assertThat(n).as(t.namespace()).isCloseTo(t.outputTokens(), within());
      assertThat(1e6 * cost / n)
          .as(t.namespace())
          .isCloseTo(
              t.costPerMillionTokens().doubleValue(), org.assertj.core.data.Offset.offset(1e-4));
    }
    // the unknown pod's tokens are priced nowhere, and the report says so
    assertThat(last.tokens())
        .extracting(t -> t.namespace())
        .containsExactlyInAnyOrder("ml", "inference");
    assertThat(last.tokens())
        .filteredOn(t -> t.namespace().equals("ml"))
        .singleElement()
        .satisfies(t -> assertThat(t.outputTokens()).isEqualTo(4.0e6));
    assertThat(last.header().notes()).anyMatch(n -> n.startsWith("1000000 output tokens"));
  }

  double gpuHours(String pod) {
    return last.rows().stream()
        .filter(r -> pod.equals(r.pod()))
        .mapToDouble(CostReport.Row::gpuRequestedHours)
        .sum();
  }

  @Test
  void shouldReplaceTheWindowsFileOnARerun() throws Exception {
    fleet();
    lastDay(FocusOutput.on(ACCOUNT));
    byte[] first = store.get(KEY).orElseThrow();
    cluster.pods.add(pod("ml", "train-1", "od", 2, DAY1.plus(Duration.ofHours(12))));
    lastDay(FocusOutput.on(ACCOUNT));
    assertThat(store.get(KEY).orElseThrow()).isNotEqualTo(first);
    var count = new int[1];
    query("SELECT count(*) FROM read_parquet('" + written() + "')", rs -> count[0] = rs.getInt(1));
    assertThat(count[0]).isEqualTo(last.rows().size());
  }

  @Test
  void shouldRefuseABadAccountIdOrModeBeforeAnyWrite() {
    assertThatThrownBy(() -> FocusOutput.from(new Settings(Map.of("COST_ACCOUNT_ID", "1234"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("12-digit");
    assertThatThrownBy(() -> FocusOutput.from(new Settings(Map.of("COST_FOCUS", "on"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("COST_ACCOUNT_ID");
    assertThat(FocusOutput.from(new Settings(Map.of())).enabled()).isFalse();
    assertThat(FocusOutput.from(new Settings(Map.of("COST_ACCOUNT_ID", ACCOUNT))).enabled())
        .isTrue();
  }

  @Test
  void shouldReadNullsAndAnEmptyFile() throws Exception {
    var cols =
        List.of(
            new ParquetFile.Column("a", ParquetFile.Kind.STRING, false),
            new ParquetFile.Column("b", ParquetFile.Kind.DECIMAL, true));
    var f = new ParquetFile(cols, ParquetFile.Codec.UNCOMPRESSED);
    for (int i = 0; i < 40; i++) {
      f.add(i % 3 == 0 ? null : "v" + i, new BigDecimal(i).movePointLeft(2));
    }
    assertThatThrownBy(() -> f.add("x", null)).hasMessageContaining("required");
    Path p = dir.resolve("nulls.parquet");
    Files.write(p, f.bytes());
    var got = new ArrayList<Object>();
    query(
        "SELECT count(a), count(*), sum(b) FROM read_parquet('" + p + "')",
        rs -> {
          got.add(rs.getLong(1));
          got.add(rs.getLong(2));
          got.add(rs.getBigDecimal(3));
        });
    assertThat(got.subList(0, 2)).containsExactly(26L, 40L);
    assertThat((BigDecimal) got.get(2)).isEqualByComparingTo("7.80");
    Path empty = dir.resolve("empty.parquet");
    Files.write(empty, new ParquetFile(cols, ParquetFile.Codec.GZIP).bytes());
    var n = new long[] {-1};
    query("SELECT count(*) FROM read_parquet('" + empty + "')", rs -> n[0] = rs.getLong(1));
    assertThat(n[0]).isZero();
  }

  @Test
  void shouldWriteAColumnOverManyPagesAndRoundDoublesAsDecimalsDo() throws Exception {
    var cols =
        List.of(
            new ParquetFile.Column("s", ParquetFile.Kind.STRING, false),
            new ParquetFile.Column("j", ParquetFile.Kind.JSON, true),
            new ParquetFile.Column("d", ParquetFile.Kind.DECIMAL, false),
            new ParquetFile.Column("t", ParquetFile.Kind.TIMESTAMP, true));
    int n = 60_000;
    double[] doubles = new double[n];
    for (int codec = 0; codec < 2; codec++) {
      var random = new java.util.Random(31);
      BigDecimal expectedSum = BigDecimal.ZERO;
      var f =
          new ParquetFile(
              cols, codec == 0 ? ParquetFile.Codec.GZIP : ParquetFile.Codec.UNCOMPRESSED);
      int nulls = 0;
      for (int i = 0; i < n; i++) {
        // halves at the sixth decimal, tiny, large and ordinary magnitudes
        double d =
            switch (i % 5) {
              case 0 -> (i / 5) + 0.0000005;
              case 1 -> random.nextDouble() * 1e-5;
              case 2 -> random.nextDouble() * 1e11;
              case 3 -> -random.nextDouble() * 40;
              default -> Math.round(random.nextDouble() * 1e7) / 1e7 + 0.00000025;
            };
        doubles[i] = d;
        if (i % 11 != 0) {
          expectedSum =
              expectedSum.add(BigDecimal.valueOf(d).setScale(6, java.math.RoundingMode.HALF_EVEN));
        }
        boolean none = i % 7 == 3 || (i > 20_000 && i < 30_000);
        nulls += none ? 1 : 0;
        f.add(
            none ? null : "pod-" + (i % 1000) + "-" + "x".repeat(i % 40),
            "{\"i\":" + i + "}",
            (i % 11 == 0) ? null : d,
            Instant.ofEpochSecond(1_700_000_000L + i));
      }
      byte[] bytes = f.bytes();
      Path p = dir.resolve("pages-" + codec + ".parquet");
      Files.write(p, bytes);
      var got = new ArrayList<Object>();
      query(
          "SELECT count(*), count(s), sum(d), max(json_extract(j, '$.i')::INT), max(t),"
              + " (SELECT s FROM read_parquet('"
              + p
              + "') WHERE json_extract(j, '$.i')::INT = 45679)"
              + " FROM read_parquet('"
              + p
              + "')",
          rs -> {
            got.add(rs.getLong(1));
            got.add(rs.getLong(2));
            got.add(rs.getBigDecimal(3));
            got.add(rs.getInt(4));
            got.add(rs.getObject(5).toString());
            got.add(rs.getString(6));
          });
      assertThat(got.get(0)).isEqualTo((long) n);
      assertThat(got.get(1)).isEqualTo((long) (n - nulls));
      assertThat((BigDecimal) got.get(2)).isEqualByComparingTo(expectedSum);
      assertThat(got.get(3)).isEqualTo(n - 1);
      assertThat(got.get(4).toString()).startsWith("2023-11-15");
      assertThat(got.get(5)).isEqualTo("pod-679-" + "x".repeat(45679 % 40));
      // every decimal equals the decimal the double prints as, rounded half-even
      var mismatches = new ArrayList<String>();
      query(
          "SELECT json_extract(j, '$.i')::INT, d FROM read_parquet('"
              + p
              + "') WHERE d IS NOT NULL",
          rs -> {
            int i = rs.getInt(1);
            BigDecimal want =
                BigDecimal.valueOf(doubles[i]).setScale(6, java.math.RoundingMode.HALF_EVEN);
            if (want.compareTo(rs.getBigDecimal(2)) != 0 && mismatches.size() < 5) {
              mismatches.add(i + ": " + doubles[i] + " -> " + rs.getBigDecimal(2));
            }
          });
      assertThat(mismatches).isEmpty();
      // the string and JSON columns hold several pages' worth of values (a page is 128 KiB raw)
      assertThat(rawChunkBytes(p, "s")).isGreaterThan(4 * 128 * 1024);
      assertThat(rawChunkBytes(p, "j")).isGreaterThan(4 * 128 * 1024);
    }
  }

  /** The raw size DuckDB reports for one column chunk. */
  private static long rawChunkBytes(Path p, String column) throws SQLException {
    var n = new long[1];
    query(
        "SELECT total_uncompressed_size FROM parquet_metadata('"
            + p
            + "') WHERE path_in_schema = '"
            + column
            + "'",
        rs -> n[0] = rs.getLong(1));
    return n[0];
  }

  static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(0.01);
  }

  static BigDecimal money(Object o) {
    return ((BigDecimal) o).setScale(2, java.math.RoundingMode.HALF_EVEN);
  }

  interface RowCheck {
    void accept(ResultSet rs) throws SQLException;
  }

  static void query(String sql, RowCheck each) throws SQLException {
    try (var c = DriverManager.getConnection("jdbc:duckdb:");
        var st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      while (rs.next()) {
        each.accept(rs);
      }
    }
  }
}

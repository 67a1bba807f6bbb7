package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.scenario.SavingsSimulation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each named query, run by the embedded engine over the FOCUS files of the simulation (3 days × 2
 * clusters), returns the same totals as the JSON reports (cost.json) of the same windows.
 */
class CostQueryTotalsTest extends CapturedCli {
  static Path dir;
  static String simulateOut;

  /** The cost.json of every FOCUS window (explicit whole days), parsed. */
  static final List<JsonNode> REPORTS = new ArrayList<>();

  @BeforeAll
  static void simulate() throws Exception {
    var out = new ByteArrayOutputStream();
    var err = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    CostSimulation.run(new PrintStream(out, true, StandardCharsets.UTF_8), err, false);
    simulateOut = out.toString(StandardCharsets.UTF_8);
    dir = CostSimulation.DIR.get();
    try (var walk = Files.walk(dir.resolve("reports"))) {
      for (Path p : walk.filter(f -> f.endsWith("cost.json")).toList()) {
        if (p.getParent().getFileName().toString().startsWith("explicit_")) {
          REPORTS.add(Json.MAPPER.readTree(Files.readAllBytes(p)));
        }
      }
    }
  }

  static String month(JsonNode report) {
    return report.at("/header/windowStart").asText().substring(0, 7);
  }

  /** The reports of the latest billing period (what the month-to-date queries cover). */
  static List<JsonNode> latestMonth() {
    String max = REPORTS.stream().map(CostQueryTotalsTest::month).max(String::compareTo).get();
    return REPORTS.stream().filter(r -> month(r).equals(max)).toList();
  }

  static BigDecimal sum(List<JsonNode> reports, String pointer) {
    return reports.stream()
        .map(r -> r.at(pointer).decimalValue())
        .reduce(BigDecimal.ZERO, BigDecimal::add);
  }

  static BigDecimal column(FocusQueries.Result r, String name) {
    int i = r.columns().indexOf(name);
    assertThat(i).as("column %s of %s", name, r.columns()).isNotNegative();
    return r.rows().stream()
        .map(row -> new BigDecimal(row.get(i).toString()))
        .reduce(BigDecimal.ZERO, BigDecimal::add);
  }

  @Test
  void shouldHaveWrittenThreeDaysOfTwoClusters() throws Exception {
    assertThat(REPORTS).hasSize(CostSimulation.FOCUS_DAYS * 2);
    try (var walk = Files.walk(dir.resolve("focus"))) {
      assertThat(walk.filter(f -> f.toString().endsWith(".parquet")))
          .hasSize(CostSimulation.FOCUS_DAYS * 2)
          .allSatisfy(
              f ->
                  assertThat(dir.relativize(f).toString())
                      .matches(
                          "focus/billing_period=\\d{4}-\\d{2}/account=123456789012/cluster=[^/]+/"
                              + "explicit_\\d{8}T0000Z_\\d{8}T0000Z\\.parquet"));
    }
    var r =
        FocusQueries.run(dir, "SELECT count(DISTINCT cluster), count(DISTINCT account) FROM focus");
    assertThat(r.rows().get(0)).containsExactly(2L, 1L);
  }

  @Test
  void simulateShouldEndWithTheCostByTeamTable() {
    assertThat(simulateOut)
        .contains("FOCUS 1.2 data: 3 days x 2 clusters")
        .contains("./gpufleet cost query cost-by-team-month --from " + dir);
    String tail = simulateOut.substring(simulateOut.lastIndexOf("FOCUS 1.2 data"));
    assertThat(tail).contains("team", "effective_cost", "(idle)");
  }

  @Test
  void costByTeamShouldMatchTheReportsTeamRollups() throws Exception {
    var reports = latestMonth();
    var r = FocusQueries.run(dir, "cost-by-team-month");
    assertThat(column(r, "effective_cost")).isEqualByComparingTo(sum(reports, "/kpis/totalCost"));
    assertThat(column(r, "list_cost"))
        .isEqualByComparingTo(sum(reports, "/kpis/onDemandEquivalentCost"));
    var want = new HashMap<String, BigDecimal>();
    for (var rep : reports) {
      for (var t : rep.at("/rollups/team")) {
        want.merge(t.get("key").asText(), t.get("effectiveCost").decimalValue(), BigDecimal::add);
      }
    }
    var got = new HashMap<String, BigDecimal>();
    for (var row : r.rows()) {
      got.put(row.get(0).toString(), new BigDecimal(row.get(2).toString()));
    }
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(want.keySet());
    want.forEach((k, v) -> assertThat(got.get(k)).as(k).isEqualByComparingTo(v));
  }

  @Test
  void costByPoolAndCapacityShouldAddUpToTheReports() throws Exception {
    var reports = latestMonth();
    var r = FocusQueries.run(dir, "cost-by-pool-capacity");
    assertThat(column(r, "effective_cost")).isEqualByComparingTo(sum(reports, "/kpis/totalCost"));
    assertThat(column(r, "list_cost"))
        .isEqualByComparingTo(sum(reports, "/kpis/onDemandEquivalentCost"));
    assertThat(column(r, "gpu_capacity_hours").doubleValue())
        .isCloseTo(
            sum(reports, "/kpis/gpuCapacityHours").doubleValue(),
            org.assertj.core.data.Offset.offset(0.05 * r.rows().size()));
  }

  @Test
  void idleGpuCostShouldBeTheReportsIdleNodeCostOfGpuPools() throws Exception {
    var reports = latestMonth();
    var want = new HashMap<String, BigDecimal>();
    var gpuPools = new HashMap<String, Double>();
    for (var rep : reports) {
      String cluster = rep.at("/header/cluster").asText();
      for (var n : rep.get("nodes")) {
        String pool = cluster + "/" + n.get("nodePool").asText();
        want.merge(pool, n.get("idleCost").decimalValue(), BigDecimal::add);
        gpuPools.merge(pool, n.get("gpuCapacityHours").asDouble(), Double::sum);
      }
    }
    gpuPools.forEach(
        (p, h) -> {
          if (h <= 0) {
            want.remove(p);
          }
        });
    var r = FocusQueries.run(dir, "idle-gpu-cost-by-pool");
    Map<String, BigDecimal> got = new HashMap<>();
    for (var row : r.rows()) {
      got.put(row.get(1) + "/" + row.get(2), new BigDecimal(row.get(3).toString()));
    }
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(want.keySet());
    want.forEach((k, v) -> assertThat(got.get(k)).as(k).isEqualByComparingTo(v));
  }

  @Test
  void spotSavingsTrendShouldBeTheReportsSpotSavingsPerDay() throws Exception {
    var r = FocusQueries.run(dir, "spot-savings-trend");
    assertThat(r.rows()).hasSize(CostSimulation.FOCUS_DAYS);
    var want = new HashMap<String, BigDecimal>();
    for (var rep : REPORTS) {
      want.merge(
          rep.at("/header/windowStart").asText().substring(0, 10),
          rep.at("/kpis/spotSavings").decimalValue(),
          BigDecimal::add);
    }
    for (var row : r.rows()) {
      assertThat(new BigDecimal(row.get(1).toString()))
          .as(row.get(0).toString())
          .isEqualByComparingTo(want.get(row.get(0).toString()));
    }
    assertThat(column(r, "effective_cost")).isEqualByComparingTo(sum(REPORTS, "/kpis/totalCost"));
  }

  @Test
  void costPerMillionTokensShouldBeTheReportsTokenCostsPerDay() throws Exception {
    // the JSON reports' token figures by day, cluster, namespace and model
    var cost = new HashMap<String, BigDecimal>();
    var tokens = new HashMap<String, Double>();
    for (var rep : REPORTS) {
      String day = rep.at("/header/windowStart").asText().substring(0, 10);
      String cluster = rep.at("/header/cluster").asText();
      for (var t : rep.get("tokens")) {
        String k =
            day + " " + cluster + " " + t.get("namespace").asText() + " " + t.get("model").asText();
        cost.merge(k, t.get("cost").decimalValue(), BigDecimal::add);
        tokens.merge(k, t.get("outputTokens").asDouble(), Double::sum);
      }
    }
    assertThat(cost).as("token figures in the simulation's reports").isNotEmpty();
    var r = FocusQueries.run(dir, "cost-per-million-tokens");
    assertThat(r.columns())
        .containsExactly(
            "day",
            "account",
            "cluster",
            "namespace",
            "model",
            "output_tokens",
            "effective_cost",
            "cost_per_million_tokens");
    var seen = new ArrayList<String>();
    for (var row : r.rows()) {
      String k = row.get(0) + " " + row.get(2) + " " + row.get(3) + " " + row.get(4);
      seen.add(k);
      assertThat(new BigDecimal(row.get(6).toString())).as(k).isEqualByComparingTo(cost.get(k));
      assertThat(new BigDecimal(row.get(5).toString()).doubleValue())
          .as(k)
          .isCloseTo(tokens.get(k), org.assertj.core.data.Offset.offset(1.0));
      double want = cost.get(k).doubleValue() * 1e6 / tokens.get(k);
      assertThat(new BigDecimal(row.get(7).toString()).doubleValue())
          .as(k)
          .isCloseTo(want, org.assertj.core.data.Offset.offset(1e-3));
    }
    assertThat(seen).containsExactlyInAnyOrderElementsOf(cost.keySet());
  }

  @Test
  void scheduleSavingsShouldBeTheHeldGpuHoursAtTheReportsGpuHourPrices() throws Exception {
    // the schedule ran hourly from the first FOCUS day's start to the last one's end
    Instant first =
        REPORTS.stream()
            .map(r -> Instant.parse(r.at("/header/windowStart").asText()))
            .min(Instant::compareTo)
            .orElseThrow();
    Instant last =
        REPORTS.stream()
            .map(r -> Instant.parse(r.at("/header/windowEnd").asText()))
            .max(Instant::compareTo)
            .orElseThrow();
    try (var files = Files.walk(dir.resolve("schedule"))) {
      assertThat(files.filter(f -> f.toString().endsWith(".json")))
          .hasSize((int) Duration.between(first, last).toHours() + 1);
    }
    // each month's price per requested GPU-hour of the demo cluster, by namespace and overall
    var cost = new HashMap<String, BigDecimal>();
    var hours = new HashMap<String, BigDecimal>();
    for (var rep : REPORTS) {
      if (!rep.at("/header/cluster").asText().equals(io.gpufleet.sim.DemoFleet.CLUSTER)) {
        continue;
      }
      for (var n : rep.get("nodes")) {
        for (var a : n.get("allocations")) {
          if (a.get("gpuRequestedHours").asDouble() > 0) {
            for (String k : List.of(month(rep) + " " + a.get("namespace").asText(), month(rep))) {
              cost.merge(k, a.get("effectiveCost").decimalValue(), BigDecimal::add);
              hours.merge(k, a.get("gpuRequestedHours").decimalValue(), BigDecimal::add);
            }
          }
        }
      }
    }
    java.util.function.BiFunction<String, String, Double> price =
        (m, ns) -> {
          String k = cost.containsKey(m + " " + ns) ? m + " " + ns : m;
          return cost.get(k).doubleValue() / hours.get(k).doubleValue();
        };
    assertThat(cost).containsKey(month(REPORTS.get(0)) + " inference");
    // the policy says which runs were off-hours; each held run counts the hour until the next
    var policy =
        io.gpufleet.schedule.policy.PolicyParser.parse(SavingsSimulation.POLICY, "simulated");
    var gpuHours = new HashMap<String, Double>();
    var saving = new HashMap<String, Double>();
    for (Instant t = first; t.isBefore(last); t = t.plus(Duration.ofHours(1))) {
      String window = io.gpufleet.schedule.policy.WindowClock.at(policy, t).name();
      if (!window.equals("off-hours")) {
        continue;
      }
      String day = t.toString().substring(0, 10);
      String m = t.toString().substring(0, 7);
      String vllm = day + " " + window + " ml-platform";
      String notebooks = day + " " + window + " ml-research";
      gpuHours.merge(vllm, (SavingsSimulation.VLLM_REPLICAS - 2) * 1.0, Double::sum);
      saving.merge(
          vllm, (SavingsSimulation.VLLM_REPLICAS - 2) * price.apply(m, "inference"), Double::sum);
      gpuHours.merge(notebooks, SavingsSimulation.NOTEBOOK_REPLICAS * 1.0, Double::sum);
      saving.merge(
          notebooks, SavingsSimulation.NOTEBOOK_REPLICAS * price.apply(m, "research"), Double::sum);
    }
    assertThat(gpuHours).isNotEmpty();

    var r = FocusQueries.run(dir, "schedule-savings");

    var seen = new ArrayList<String>();
    for (var row : r.rows()) {
      String k = row.get(0) + " " + row.get(1) + " " + row.get(2);
      seen.add(k);
      assertThat(new BigDecimal(row.get(4).toString()).doubleValue())
          .as("held GPU-hours " + k)
          .isCloseTo(gpuHours.get(k), org.assertj.core.data.Offset.offset(0.05));
      assertThat(new BigDecimal(row.get(5).toString()).doubleValue())
          .as("estimated saving " + k)
          .isCloseTo(saving.get(k), org.assertj.core.data.Offset.offset(0.01));
      assertThat(new BigDecimal(row.get(6).toString())).as(k).isZero();
    }
    assertThat(seen).containsExactlyInAnyOrderElementsOf(gpuHours.keySet());
    assertThat(simulateOut)
        .contains("hold records under " + dir.resolve("schedule"))
        .contains("./gpufleet cost query schedule-savings --from " + dir)
        .contains("(an ESTIMATE)")
        .contains("estimated_saving");
  }

  @Test
  void costQueryShouldAnswerByTeamOverBothClustersInOneCommand() {
    int code =
        run("cost", "query", "cost-by-team-month", "--from", dir.toString(), "--format", "csv");
    assertThat(code).as(err()).isZero();
    assertThat(out()).startsWith("team,clusters,effective_cost,list_cost,gpu_hours\n");
    assertThat(out().lines().skip(1)).anySatisfy(l -> assertThat(l).contains(",2,"));
    outBytes.reset();
    assertThat(
            run(
                "cost",
                "query",
                "SELECT count(*) AS n FROM focus",
                "--from",
                dir.toString(),
                "--format",
                "json"))
        .isZero();
    assertThat(out()).contains("\"n\"");
  }

  @Test
  void costQueryShouldRefuseAnUnknownNameBadSqlOrFormat() {
    assertThat(run("cost", "query", "cost-by-planet", "--from", dir.toString())).isEqualTo(2);
    assertThat(err()).contains("neither a named query");
    assertThat(run("cost", "query", "SELECT nope FROM focus", "--from", dir.toString()))
        .isEqualTo(2);
    assertThat(err()).contains("nope");
    assertThat(
            run("cost", "query", "cost-by-team-month", "--from", dir.toString(), "--format", "xml"))
        .isEqualTo(2);
    assertThat(err()).contains("--format");
    assertThat(
            run("cost", "query", "cost-by-team-month", "--from", dir.resolve("nowhere").toString()))
        .isEqualTo(2);
  }

  @Test
  void namedQueriesShouldBeTheFilesOfDeployQueries() throws Exception {
    Path queries = ProjectHome.findRoot(ProjectHome.path()).resolve("deploy/queries");
    try (var files = Files.list(queries)) {
      assertThat(files.map(f -> f.getFileName().toString().replaceFirst("\\.sql$", "")))
          .containsExactlyInAnyOrderElementsOf(FocusQueries.NAMES);
    }
    for (String name : FocusQueries.NAMES) {
      assertThat(FocusQueries.sql(name))
          .isEqualTo(Files.readString(queries.resolve(name + ".sql")));
    }
  }
}

package io.gpufleet.cost.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.cost.AllocationRule;
import io.gpufleet.cost.InventoryMerger;
import io.gpufleet.cost.ReportBuilder;
import io.gpufleet.cost.SpotPrices;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.SpotPricePoint;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens cost.html in headless Chromium (Debian's chromium) and checks that the three charts render:
 * every chart SVG is laid out with a non-zero size and holds bars with non-zero sizes. The report
 * itself has no script; the test page is a copy with one inline measuring script appended, whose
 * results Chromium's --dump-dom prints. Without Chromium the test is skipped locally and fails in
 * CI (CI=true), where scripts/test.sh installs it.
 */
class ReportHtmlChromiumTest {
  @TempDir Path dir;

  static final String MEASURE =
      """
      <script>
      (function () {
        var out = {};
        document.querySelectorAll('svg.chart').forEach(function (svg) {
          var box = svg.getBoundingClientRect();
          var bars = [];
          svg.querySelectorAll('rect').forEach(function (r) {
            var b = r.getBoundingClientRect();
            bars.push({cls: r.getAttribute('class'), w: b.width, h: b.height});
          });
          out[svg.id] = {w: box.width, h: box.height, bars: bars};
        });
        var wrapped = [];
        document.querySelectorAll('table.fit td:not(.notes)').forEach(function (td) {
          var r = document.createRange();
          r.selectNodeContents(td);
          var lines = {};
          Array.prototype.forEach.call(r.getClientRects(), function (q) {
            if (q.width > 0) { lines[Math.round(q.top)] = 1; }
          });
          if (Object.keys(lines).length > 1) { wrapped.push(td.textContent); }
        });
        var nodes = document.getElementById('nodes').parentElement;
        out._layout = {wrapped: wrapped,
            nodesOverflow: nodes.scrollWidth - nodes.clientWidth,
            pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth};
        var pre = document.createElement('pre');
        pre.id = 'measured';
        pre.textContent = JSON.stringify(out);
        document.body.appendChild(pre);
      })();
      </script>
      """;

  static Optional<Path> chromium() {
    String env = System.getenv("CHROMIUM");
    if (env != null && !env.isBlank()) {
      return Optional.of(Path.of(env));
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      for (String name : List.of("chromium", "chromium-browser")) {
        Path p = Path.of(dir, name);
        if (Files.isExecutable(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }

  static CostReport sampleReport() {
    Instant end = Instant.parse("2026-11-30T00:00:00Z");
    Instant start = end.minus(Duration.ofDays(1));
    var nodes = new ArrayList<ClusterNode>();
    var pods = new ArrayList<ClusterPod>();
    var instances = new ArrayList<Ec2Instance>();
    String[][] fleet = {
      {"i-01", "p5.48xlarge", "8", "spot", "gpu-training"},
      {"i-02", "p5.48xlarge", "8", "on-demand", "gpu-training"},
      {"i-03", "g6e.12xlarge", "4", "spot", "gpu-inference"},
      {"i-04", "g6e.12xlarge", "4", "on-demand", "gpu-inference"},
      {"i-05", "g5.2xlarge", "1", "on-demand", "batch"}
    };
    for (String[] f : fleet) {
      int gpus = Integer.parseInt(f[2]);
      nodes.add(
          new ClusterNode(
              "node-" + f[0],
              "aws:///us-east-1a/" + f[0],
              f[0],
              f[1],
              "us-east-1a",
              f[3],
              f[4],
              null,
              start.minusSeconds(3600),
              gpus,
              "nvidia.com/gpu",
              48_000,
              192L << 30));
      instances.add(
          new Ec2Instance(
              f[0],
              f[1],
              "us-east-1a",
              "spot".equals(f[3]) ? Lifecycle.SPOT : Lifecycle.ON_DEMAND,
              start.minusSeconds(3600),
              "running",
              null,
              f[4],
              null));
      pods.add(
          new ClusterPod(
              "ml",
              "job-" + f[0],
              "ml/job-" + f[0],
              "node-" + f[0],
              "research <&> team",
              Map.of("nvidia.com/gpu", (double) Math.max(1, gpus / 2)),
              4000,
              16L << 30,
              start,
              null));
    }
    // sharing: a MIG p5 (mixed, 3g.40gb), a time-sliced g6e (4 replicas) and a g5 whose device
    // plugin advertises nothing; they start during the window so the hourly chart changes
    Instant later = start.plus(Duration.ofHours(9));
    nodes.add(
        new ClusterNode(
            "node-i-06",
            "aws:///us-east-1a/i-06",
            "i-06",
            "p5.48xlarge",
            "us-east-1a",
            "on-demand",
            "gpu-mig",
            null,
            later,
            0,
            null,
            192_000,
            2048L << 30,
            Map.of("nvidia.com/mig-3g.40gb", 16),
            Map.of("nvidia.com/mig.strategy", "mixed")));
    nodes.add(
        new ClusterNode(
            "node-i-07",
            "aws:///us-east-1a/i-07",
            "i-07",
            "g6e.12xlarge",
            "us-east-1a",
            "spot",
            "gpu-inference",
            null,
            later,
            16,
            "nvidia.com/gpu",
            48_000,
            384L << 30,
            Map.of("nvidia.com/gpu", 16),
            Map.of(
                "nvidia.com/gpu.replicas",
                "4",
                "nvidia.com/gpu.sharing-strategy",
                "time-slicing")));
    nodes.add(
        new ClusterNode(
            "node-i-08",
            "aws:///us-east-1a/i-08",
            "i-08",
            "g5.2xlarge",
            "us-east-1a",
            "on-demand",
            "batch",
            null,
            start.plus(Duration.ofHours(18)),
            0,
            null,
            8_000,
            32L << 30,
            Map.of(),
            Map.of()));
    for (String[] extra :
        new String[][] {
          {"i-06", "p5.48xlarge", "spot", "gpu-mig"},
          {"i-07", "g6e.12xlarge", "spot", "gpu-inference"},
          {"i-08", "g5.2xlarge", "on-demand", "batch"}
        }) {
      instances.add(
          new Ec2Instance(
              extra[0],
              extra[1],
              "us-east-1a",
              extra[0].equals("i-06")
                  ? Lifecycle.ON_DEMAND
                  : "spot".equals(extra[2]) ? Lifecycle.SPOT : Lifecycle.ON_DEMAND,
              extra[0].equals("i-08") ? start.plus(Duration.ofHours(18)) : later,
              "running",
              null,
              extra[3],
              null));
    }
    pods.add(
        new ClusterPod(
            "serving",
            "vllm-llama-0",
            "serving/vllm-llama-0",
            "node-i-06",
            "inference",
            Map.of("nvidia.com/mig-3g.40gb", 12.0),
            16_000,
            128L << 30,
            later,
            null));
    pods.add(
        new ClusterPod(
            "serving",
            "vllm-small-0",
            "serving/vllm-small-0",
            "node-i-07",
            "inference",
            Map.of("nvidia.com/gpu", 6.0),
            8_000,
            64L << 30,
            later,
            null));
    pods.add(
        new ClusterPod(
            "data",
            "loader-0",
            "data/loader-0",
            "node-i-02",
            "data",
            Map.of(),
            48_000,
            512L << 30,
            start,
            null));
    var inv =
        InventoryMerger.merge(
            "chromium",
            "us-east-1",
            end,
            nodes,
            pods,
            instances,
            InventorySnapshot.empty("chromium"),
            Duration.ofDays(40));
    var spot =
        new SpotPrices(
            List.of(
                new SpotPricePoint(
                    "us-east-1a", "p5.48xlarge", start.minusSeconds(60), new BigDecimal("31.5")),
                new SpotPricePoint(
                    "us-east-1a", "g6e.12xlarge", start.minusSeconds(60), new BigDecimal("4.2"))));
    return ReportBuilder.build(
        inv,
        new ReportBuilder.Inputs(
            "chromium",
            "us-east-1",
            new ReportWindow("last-day", start, end),
            end,
            AllocationRule.GPU,
            "team",
            new StaticPrices(),
            spot,
            List.of("a note with <markup>"),
            io.gpufleet.cost.model.Commitments.table(
                Map.of("p5.48xlarge", new BigDecimal("60.00"))),
            new io.gpufleet.cost.model.Utilisation(
                "prometheus",
                Map.of("node-i-01", 91.0, "node-i-02", 64.0, "node-i-06", 38.0, "node-i-07", 22.0),
                Map.of("serving/vllm-llama-0", 45.0, "serving/vllm-small-0", 30.0),
                List.of(
                    new io.gpufleet.cost.model.Utilisation.Tokens(
                        "serving", "vllm-llama-0", "llama-3.1-70b", "vllm", 2.4e8),
                    new io.gpufleet.cost.model.Utilisation.Tokens(
                        "serving", "vllm-small-0", "mistral-7b", "vllm", 9.0e7)),
                List.of()),
            Map.of(
                "commitments", "rate-table: configured",
                "utilisation", "prometheus: 4 nodes, 2 pods",
                "tokens", "prometheus: 2 series")));
  }

  @Test
  void theReportIsSelfContained() {
    String html = new String(ReportHtml.html(sampleReport()), StandardCharsets.UTF_8);

    assertThat(html).doesNotContainIgnoringCase("<script");
    assertThat(html.replace("http://www.w3.org/2000/svg", ""))
        .doesNotContain("http://", "https://", "<link", "@import");
    assertThat(html).contains("research &lt;&amp;&gt; team").contains("a note with &lt;markup&gt;");
    assertThat(html).contains("Allocation rule <b>gpu</b>");
  }

  @Test
  void chromiumRendersEveryChartAndTablesDoNotWrap() throws Exception {
    var chromium = chromium();
    if (chromium.isEmpty()) {
      String message = "chromium not found on PATH (set CHROMIUM or apt-get install chromium)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new AssertionError(message + ": required in CI");
      }
      Assumptions.abort(message);
    }
    String html = new String(ReportHtml.html(sampleReport()), StandardCharsets.UTF_8);
    Path page = dir.resolve("measure.html");
    Files.writeString(page, html.replace("</body>", MEASURE + "</body>"));

    String dom = dumpDom(chromium.get(), page);

    int at = dom.indexOf("<pre id=\"measured\">");
    assertThat(at)
        .as(
            "the measuring script ran; DOM was:\n%s",
            dom.length() > 2000 ? dom.substring(0, 2000) : dom)
        .isNotNegative();
    String json =
        dom.substring(at + "<pre id=\"measured\">".length(), dom.indexOf("</pre>", at))
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    JsonNode measured = Json.MAPPER.readTree(json);
    var charts =
        List.of(
            "chart-nodepool",
            "chart-spot",
            "chart-idle",
            "chart-idle-two-ways",
            "chart-hourly-pool",
            "chart-hourly-capacity");
    assertThat(measured.fieldNames())
        .toIterable()
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.Stream.concat(charts.stream(), java.util.stream.Stream.of("_layout"))
                .toList());
    JsonNode layout = measured.get("_layout");
    assertThat(layout.get("wrapped")).as("table cells that wrap").isEmpty();
    assertThat(layout.get("nodesOverflow").asInt())
        .as("the node table fits a 1400 px wide page")
        .isLessThanOrEqualTo(0);
    assertThat(layout.get("pageWidth").asInt())
        .as("the page does not scroll sideways")
        .isLessThanOrEqualTo(layout.get("viewport").asInt());
    for (var chart : charts) {
      JsonNode c = measured.get(chart);
      assertThat(c.get("w").asDouble()).as(chart + " width").isPositive();
      assertThat(c.get("h").asDouble()).as(chart + " height").isPositive();
      assertThat(c.get("bars")).as(chart + " bars").isNotEmpty();
      c.get("bars")
          .forEach(
              b -> {
                assertThat(b.get("w").asDouble()).as(chart + " bar " + b).isPositive();
                assertThat(b.get("h").asDouble()).as(chart + " bar " + b).isPositive();
              });
    }
    // four NodePools, spot + on-demand + the On-Demand bar and legend, requested and idle GPUs
    assertThat(measured.get("chart-nodepool").get("bars")).hasSize(4);
    assertThat(classes(measured.get("chart-spot"))).contains("spot", "on-demand", "list");
    assertThat(classes(measured.get("chart-idle"))).contains("requested", "idle");
    assertThat(classes(measured.get("chart-idle-two-ways"))).contains("requested", "unused");
    // stacked by pool: four pools with cost, each its own colour
    assertThat(classes(measured.get("chart-hourly-pool"))).contains("s0", "s1", "s2", "s3");
    assertThat(classes(measured.get("chart-hourly-capacity"))).contains("s0", "s1");

    // and a picture for people: the screenshot is kept under target/ for review
    Path png = Path.of("target", "cost-report-chromium.png").toAbsolutePath();
    screenshot(chromium.get(), dir.resolve("shot.html"), html, png);
    assertThat(Files.size(png)).isGreaterThan(10_000);
  }

  @Test
  void theReportShowsSharingCommitmentsUtilisationAndTokens() {
    var r = sampleReport();
    String html = new String(ReportHtml.html(r), StandardCharsets.UTF_8);
    assertThat(html)
        .contains("id=\"gpu-sharing\"", "mig-mixed", "time-slicing x4", "0 allocatable GPUs")
        .contains("rate-table", "llama-3.1-70b", "id=\"cpu-only\"", "balanced");
    assertThat(r.reconciliation().balanced()).isTrue();
    // p5 MIG node: 12 of 16 3g.40gb slices requested = 6 of its 8 physical GPUs
    var mig = r.gpuSharing().stream().filter(g -> g.node().equals("node-i-06")).findFirst().get();
    assertThat(mig.physicalGpus()).isEqualTo(8);
    assertThat(mig.gpuRequestedHours() / mig.gpuCapacityHours()).isCloseTo(0.75, within(1e-3));
    var ts = r.gpuSharing().stream().filter(g -> g.node().equals("node-i-07")).findFirst().get();
    assertThat(ts.physicalGpus()).isEqualTo(4);
    assertThat(ts.gpuRequestedHours() / ts.gpuCapacityHours()).isCloseTo(6 / 16.0, within(1e-3));
  }

  void screenshot(Path chromium, Path page, String html, Path png) throws Exception {
    Files.writeString(page, html);
    Files.createDirectories(png.getParent());
    var p =
        new ProcessBuilder(
                chromium.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + dir.resolve("profile-shot"),
                "--window-size=1400,4200",
                "--screenshot=" + png,
                page.toUri().toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("shot.log").toFile())
            .start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError("chromium screenshot did not finish within 90 s");
    }
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("shot.log"))).isZero();
  }

  static List<String> classes(JsonNode chart) {
    var out = new ArrayList<String>();
    chart.get("bars").forEach(b -> out.add(b.get("cls").asText()));
    return out;
  }

  String dumpDom(Path chromium, Path page) throws IOException, InterruptedException {
    var cmd =
        List.of(
            chromium.toString(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--user-data-dir=" + dir.resolve("profile"),
            "--window-size=1400,4200",
            "--dump-dom",
            page.toUri().toString());
    Path stdout = dir.resolve("dom.html");
    Path stderr = dir.resolve("chromium.log");
    var p =
        new ProcessBuilder(cmd)
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError("chromium did not finish within 90 s: " + Files.readString(stderr));
    }
    assertThat(p.exitValue()).as("chromium exit code; log: %s", Files.readString(stderr)).isZero();
    return Files.readString(stdout);
  }
}

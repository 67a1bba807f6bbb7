package io.gpufleet.cost.render;

import static org.assertj.core.api.Assertions.assertThat;

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
            List.of("a note with <markup>")));
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
  void chromiumRendersTheThreeCharts() throws Exception {
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
    assertThat(measured.fieldNames())
        .toIterable()
        .containsExactlyInAnyOrder("chart-nodepool", "chart-spot", "chart-idle");
    for (var chart : List.of("chart-nodepool", "chart-spot", "chart-idle")) {
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
    // three NodePools, spot + on-demand + the On-Demand bar and legend, requested and idle GPUs
    assertThat(measured.get("chart-nodepool").get("bars")).hasSize(3);
    assertThat(classes(measured.get("chart-spot"))).contains("spot", "on-demand", "list");
    assertThat(classes(measured.get("chart-idle"))).contains("requested", "idle");
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

package io.gpufleet.cost.render;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * cost.html from the precompiled jte templates: the same page the hand-written builder produced
 * (golden files written by it before the move; the engine writes a double quote as {@code &#34;}
 * where the builder wrote {@code &quot;}, the only difference), and every value from the cluster
 * escaped by the engine.
 */
class ReportHtmlTemplateTest {
  static final String NODE = "node-<script>alert(\"n\")</script>";
  static final String POOL = "pool'\"><img src=x onerror=alert(1)>";
  static final String POD = "job\"<script>";
  static final String TEAM = "<b onmouseover='steal()'>team</b>";
  static final String NOTE = "</li><script>alert('note')</script>";

  static CostReport hostileReport() {
    Instant end = Instant.parse("2026-11-30T00:00:00Z");
    Instant start = end.minus(Duration.ofDays(1));
    var node =
        new ClusterNode(
            NODE,
            "aws:///us-east-1a/i-0bad",
            "i-0bad",
            "g6e.12xlarge",
            "us-east-1a",
            "spot",
            POOL,
            null,
            start.minusSeconds(3600),
            4,
            "nvidia.com/gpu",
            48_000,
            192L << 30);
    var pod =
        new ClusterPod(
            "ml\"<x>",
            POD,
            "ml/" + POD,
            NODE,
            TEAM,
            Map.of("nvidia.com/gpu", 1.0),
            4000,
            16L << 30,
            start,
            null);
    var cpuOnly =
        new ClusterPod(
            "data",
            "<i>loader</i>",
            "data/<i>loader</i>",
            NODE,
            TEAM,
            Map.of(),
            8000,
            8L << 30,
            start,
            null);
    var instance =
        new Ec2Instance(
            "i-0bad",
            "g6e.12xlarge",
            "us-east-1a",
            Lifecycle.SPOT,
            start.minusSeconds(3600),
            "running",
            null,
            POOL,
            null);
    return build(List.of(node), List.of(pod, cpuOnly), List.of(instance), start, end, NOTE);
  }

  static CostReport emptyReport() {
    Instant end = Instant.parse("2026-11-30T00:00:00Z");
    return build(List.of(), List.of(), List.of(), end.minus(Duration.ofDays(1)), end, "none");
  }

  private static CostReport build(
      List<ClusterNode> nodes,
      List<ClusterPod> pods,
      List<Ec2Instance> instances,
      Instant start,
      Instant end,
      String note) {
    var inv =
        InventoryMerger.merge(
            "c<1>",
            "us-east-1",
            end,
            nodes,
            pods,
            instances,
            InventorySnapshot.empty("c<1>"),
            Duration.ofDays(40));
    return ReportBuilder.build(
        inv,
        new ReportBuilder.Inputs(
            "c<1>",
            "us-east-1",
            new ReportWindow("last-day", start, end),
            end,
            AllocationRule.GPU,
            "team",
            new StaticPrices(),
            new SpotPrices(List.of()),
            List.of(note),
            io.gpufleet.cost.model.Commitments.table(Map.of()),
            io.gpufleet.cost.model.Utilisation.none("no <prometheus> configured"),
            Map.of("tokens", "none: \"no <source>\"")));
  }

  static String html(CostReport r) {
    return new String(ReportHtml.html(r), StandardCharsets.UTF_8);
  }

  static CostReport report(String name) {
    return switch (name) {
      case "sample" -> ReportHtmlChromiumTest.sampleReport();
      case "hostile" -> hostileReport();
      default -> emptyReport();
    };
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sample", "hostile", "empty"})
  void shouldRenderThePageTheHandWrittenBuilderRendered(String name) throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/render/cost-" + name + ".html")) {
      assertThat(in).as("golden file").isNotNull();
      String actual = html(report(name));
      // kept for a diff when it fails
      java.nio.file.Files.writeString(
          java.nio.file.Path.of("target", "cost-" + name + ".html"), actual);
      assertThat(canonical(actual))
          .isEqualTo(canonical(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
    }
  }

  @Test
  void shouldEscapeEveryHostileValueFromTheCluster() {
    String html = html(hostileReport());

    assertThat(html).doesNotContainIgnoringCase("<script").doesNotContainIgnoringCase("<img");
    assertThat(html).doesNotContain("<b onmouseover", "<i>loader", "<x>");
    for (String hostile : List.of(NODE, POOL, TEAM, NOTE, "<i>loader</i>")) {
      assertThat(html).as(hostile).doesNotContain(hostile).contains(inText(hostile));
    }
    assertThat(html).doesNotContain(POD);
    assertThat(html).contains("<title>GPU cost report c&lt;1&gt; last-day</title>");
    assertThat(html).contains("<dd>none: \"no &lt;source&gt;\"</dd>");
  }

  @Test
  void shouldEscapeQuotesInAttributeValues() {
    var out = new gg.jte.output.StringOutput();
    var svg =
        new Svg(
            "x\" onload=\"alert(1)",
            920,
            40,
            "t",
            List.of(new Svg.Rect("a'b\"c<d>", "0", "0", "1", "1", "</title><script>")));

    ReportHtml.ENGINE.render("svg.jte", svg, out);

    assertThat(out.toString())
        .contains("id=\"x&#34; onload=&#34;alert(1)\"")
        .contains("class=\"a&#39;b&#34;c&lt;d>\"")
        .contains("<title>&lt;/title&gt;&lt;script&gt;</title>")
        .doesNotContain("<script");
  }

  @Test
  void shouldShowTheEmptyStatesOfAClusterWithoutNodes() {
    assertThat(html(emptyReport()))
        .contains(
            "no cost in the window",
            "no nodes in the window",
            "no GPU nodes in the window",
            "No GPU nodes in the window.",
            "No token counters",
            "<p class=\"muted\">None.</p>");
  }

  /** What the engine's HTML content type writes for a value in text (quotes need no escape). */
  static String inText(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  /**
   * The page with what may differ between two correct renderings made equal: quotes in text content
   * (the hand-written builder escaped them, the engine need not) and the order of the data sources
   * (a {@code Map.of}, whose order changes from one JVM to the next).
   */
  static String canonical(String html) {
    String text =
        Pattern.compile(">([^<]*)<")
            .matcher(html)
            .replaceAll(
                m ->
                    Matcher.quoteReplacement(
                        ">" + m.group(1).replace("&#34;", "\"").replace("&#39;", "'") + "<"));
    return Pattern.compile("(<dl class=\"sources\" id=\"data-sources\">)(.*?)(</dl>)")
        .matcher(text)
        .replaceAll(
            m -> {
              var pairs = new ArrayList<String>();
              var pair = Pattern.compile("<dt>.*?</dd>").matcher(m.group(2));
              while (pair.find()) {
                pairs.add(pair.group());
              }
              pairs.sort(null);
              return Matcher.quoteReplacement(m.group(1) + String.join("", pairs) + m.group(3));
            });
  }
}

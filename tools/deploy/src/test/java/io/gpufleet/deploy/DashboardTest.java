package io.gpufleet.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.CfnYaml;
import io.gpufleet.core.outcome.Metric;
import io.gpufleet.scenario.ProjectHome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The stack's dashboard is generated from, and agrees with, what the functions publish. */
class DashboardTest {
  private static Path root;
  private static String template;

  @BeforeAll
  static void read() throws IOException {
    root = ProjectHome.findRoot(Path.of(""));
    template = Files.readString(root.resolve("template.yaml"));
  }

  @Test
  void shouldCommitTheDashboardTheDeclarationsGenerate() {
    // Given the committed template, When the dashboard block is generated again
    // Then nothing changes (run ./gpufleet docs dashboard after changing a declaration)
    assertThat(Dashboard.spliced(template)).isEqualTo(template);
  }

  @Test
  void shouldFindTheDashboardWidgetsAndAlarmsInAgreementWithThePublishedMetrics() {
    assertThat(DashboardCheck.problems(template)).isEmpty();
  }

  @Test
  void shouldNameTheDashboardAfterTheStackAndOutputItsName() {
    var t = CfnYaml.load(template);
    @SuppressWarnings("unchecked")
    var outputs = (Map<String, Map<String, Object>>) t.get("Outputs");
    assertThat(outputs.get("DashboardName").get("Value")).isEqualTo(Map.of("Ref", "Dashboard"));
  }

  @Test
  void shouldRefuseAWidgetNamingAMetricNoFunctionPublishes() {
    String broken = inDashboard("\"TimeToCordon\"", "\"TimeToKordon\"");

    assertThat(DashboardCheck.problems(broken))
        .anySatisfy(
            p -> assertThat(p).contains("interruption-drain publishes no metric TimeToKordon"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains("interruption-drain/TimeToCordon is published but on no widget"));
  }

  @Test
  void shouldRefuseAWidgetWithADimensionTheMetricIsNotPublishedWith() {
    String broken = inDashboard("{GpuFleetOps,Service,Reason}", "{GpuFleetOps,Service,Cause}");

    assertThat(DashboardCheck.problems(broken))
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains("PodsNotEvictedByReason with dimensions [Cause, Service]")
                    .contains("published with [Reason, Service]"));
  }

  @Test
  void shouldRefuseAWidgetWhoseServiceIsNoFunction() {
    String broken = inDashboard("\"Service\",\"cost-report\"", "\"Service\",\"cost-reports\"");

    assertThat(DashboardCheck.problems(broken))
        .anySatisfy(p -> assertThat(p).contains("with Service cost-reports: no such function"));
  }

  @Test
  void shouldRefuseAnAlarmOnAMetricNoFunctionPublishes() {
    String broken =
        template.replace("[DeadlineMissed, EventsFailed]", "[DeadlineMissed, EventsLost]");
    assertThat(broken).isNotEqualTo(template);

    assertThat(DashboardCheck.problems(broken))
        .anySatisfy(
            p -> assertThat(p).contains("interruption-drain publishes no metric EventsLost"));
  }

  @Test
  void shouldRefuseAPublishedMetricOnNoWidgetAndNoAlarmUnlessDeliberate() {
    // Given the drain publishing one more metric than the dashboard shows
    var published = new LinkedHashMap<>(Dashboard.publishedByService());
    var drain = new LinkedHashMap<>(published.get("interruption-drain"));
    drain.put("PodsTeleported", Metric.count("PodsTeleported"));
    published.put("interruption-drain", drain);
    var t = CfnYaml.load(template);

    // Then the check names it, unless it is listed as deliberate with a reason
    assertThat(new DashboardCheck(published, Map.of()).check(t))
        .containsExactly(
            "interruption-drain/PodsTeleported is published but on no widget and no alarm (graph it"
                + " or list it as deliberate)");
    assertThat(new DashboardCheck(published, Map.of("PodsTeleported", "a test")).check(t))
        .isEmpty();
  }

  @Test
  void shouldEmitMetricsOnlyThroughTheirDeclarations() throws IOException {
    // a metric-name literal handed to MetricsPort.add would bypass the declarations
    var literal = Pattern.compile("metrics\\.add\\(\\s*\"");
    List<Path> offenders;
    try (Stream<Path> functions = Files.walk(root.resolve("functions"));
        Stream<Path> platform = Files.walk(root.resolve("platform"))) {
      offenders =
          Stream.concat(functions, platform)
              .filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/"))
              .filter(p -> literal.matcher(read(p)).find())
              .toList();
    }
    assertThat(offenders).isEmpty();
  }

  private static String inDashboard(String from, String to) {
    int begin = template.indexOf(Dashboard.BEGIN);
    int end = template.indexOf(Dashboard.END);
    String block = template.substring(begin, end);
    String changed = block.replace(from, to);
    assertThat(changed).as("the dashboard contains " + from).isNotEqualTo(block);
    return template.substring(0, begin) + changed + template.substring(end);
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}

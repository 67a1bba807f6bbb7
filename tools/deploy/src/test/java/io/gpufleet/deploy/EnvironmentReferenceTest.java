package io.gpufleet.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.scenario.ProjectHome;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/environment.md is what the code reads: regenerate it with {@code ./gpufleet docs
 * environment} when this fails.
 */
class EnvironmentReferenceTest {
  static Path root;
  static EnvironmentReference.Result result;

  @BeforeAll
  static void generate() {
    root = ProjectHome.findRoot(Path.of(""));
    result = new EnvironmentReference(root).generate();
  }

  @Test
  void shouldMatchTheCommittedPage() throws Exception {
    Path page = root.resolve(EnvironmentReference.PAGE);
    assertThat(page).as("run ./gpufleet docs environment").exists();
    assertThat(Files.readString(page))
        .as("docs/environment.md is out of date: run ./gpufleet docs environment")
        .isEqualTo(result.markdown());
  }

  @Test
  void shouldMatchTheCommittedSettingsSchemas() throws Exception {
    assertThat(result.schemas())
        .containsOnlyKeys(
            "schemas/settings/interruption-drain.schema.json",
            "schemas/settings/disruption-schedule.schema.json",
            "schemas/settings/capacity-preflight.schema.json",
            "schemas/settings/cost-report.schema.json");
    for (var schema : result.schemas().entrySet()) {
      Path file = root.resolve(schema.getKey());
      assertThat(file).as("run ./gpufleet docs environment").exists();
      assertThat(Files.readString(file))
          .as(schema.getKey() + " is out of date: run ./gpufleet docs environment")
          .isEqualTo(schema.getValue());
    }
  }

  @Test
  void shouldPutEveryKnobTheTemplateLeavesInTheSettingsSchemaWithTheCodesTypeAndRange() {
    String drain = result.schemas().get("schemas/settings/interruption-drain.schema.json");
    assertThat(drain)
        .contains(
            "\"DRAIN_EVICTION_CONCURRENCY\" : {\n      \"type\" : \"integer\",\n      \"minimum\" : 1,\n"
                + "      \"maximum\" : 1000,\n      \"default\" : 128,")
        .contains(
            "\"LIFECYCLE_RESULT_AT_LIMIT\" : {\n      \"enum\" : [ \"CONTINUE\", \"ABANDON\" ]")
        .contains("\"additionalProperties\" : false")
        // what the template sets, or says where the function runs, is no knob
        .doesNotContain("\"CLUSTER_NAME\"")
        .doesNotContain("\"DRAIN_TAINT_KEY\"")
        .doesNotContain("\"KUBE_API_URL\"")
        .doesNotContain("\"SETTINGS_DOCUMENT\"");
  }

  @Test
  void shouldFindEveryTemplateVariableReadAndEveryReadDescribed() {
    assertThat(result.problems()).isEmpty();
  }

  @Test
  void shouldTakeTypeDefaultAndRangeFromTheCodesRead() {
    assertThat(result.markdown())
        .contains(
            "| `DRAIN_EVICTION_CONCURRENCY` | integer | `128` | 1..1000 | no | settings document"
                + " | Evictions in flight at once. |")
        .contains("| `LIFECYCLE_HEARTBEAT_INTERVAL` | duration | `1m` | 30s..1h | no |")
        .contains("| `LIFECYCLE_RESULT_AT_LIMIT` | enum | `CONTINUE` | CONTINUE \\| ABANDON | no |")
        .contains("| `REPORT_BUCKET` | string |  |  | yes | resource CostReportBucket |")
        .contains("| `AWS_REGION` | string |  |  | no |  | Region of the function's AWS clients");
  }

  @Test
  void shouldFailWhenTheTemplateSetsAVariableNoCodeReads(@TempDir Path dir) throws Exception {
    String template = Files.readString(root.resolve("template.yaml"));
    String marker = "          DRAIN_FORCE_DELETE: !Ref DrainForceDelete\n";
    assertThat(template).contains(marker);
    Files.writeString(
        dir.resolve("template.yaml"),
        template.replace(marker, marker + "          DRAIN_SPEED: fast\n"));
    assertThat(new EnvironmentReference(dir).generate().problems())
        .anyMatch(p -> p.startsWith("interruption-drain: template.yaml sets DRAIN_SPEED but no"));
  }

  @Test
  void shouldFailWhenCodeReadsAVariableWithoutADescription(@TempDir Path dir) throws Exception {
    // DRAIN_FORCE_DELETE is described by its parameter; set it literally and nothing describes it
    String template = Files.readString(root.resolve("template.yaml"));
    Files.writeString(
        dir.resolve("template.yaml"),
        template.replace(
            "          DRAIN_FORCE_DELETE: !Ref DrainForceDelete\n",
            "          DRAIN_FORCE_DELETE: \"false\"\n"));
    assertThat(new EnvironmentReference(dir).generate().problems())
        .contains(
            "interruption-drain reads DRAIN_FORCE_DELETE but it has no description: add it to"
                + " EnvironmentReference.DESCRIPTIONS (or feed it from a template parameter with a"
                + " Description)");
  }

  @Test
  void shouldFailWhenAParameterAllowsWhatTheCodeRefuses(@TempDir Path dir) throws Exception {
    String template = Files.readString(root.resolve("template.yaml"));
    String max = "    MaxValue: 100\n";
    int at = template.indexOf("  QuotaAlarmThresholdPercent:");
    assertThat(template.indexOf(max, at)).isPositive();
    Files.writeString(
        dir.resolve("template.yaml"),
        template.substring(0, at)
            + template.substring(at).replaceFirst(max, "    MaxValue: 150\n"));
    assertThat(new EnvironmentReference(dir).generate().problems())
        .contains(
            "capacity-preflight: parameter QuotaAlarmThresholdPercent (PREFLIGHT_WARN_PERCENT)"
                + " allows 1..150; the code accepts 1..100");
  }
}

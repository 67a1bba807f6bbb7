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
  void shouldFindEveryTemplateVariableReadAndEveryReadDescribed() {
    assertThat(result.problems()).isEmpty();
  }

  @Test
  void shouldTakeTypeDefaultAndRangeFromTheCodesRead() {
    assertThat(result.markdown())
        .contains(
            "| `DRAIN_EVICTION_CONCURRENCY` | integer | `128` | 1..1000 | no | parameter"
                + " DrainEvictionConcurrency | Parameter DrainEvictionConcurrency: Evictions in"
                + " flight at once. |")
        .contains("| `LIFECYCLE_HEARTBEAT_INTERVAL` | duration | `1m` | 30s..1h | no |")
        .contains("| `LIFECYCLE_RESULT_AT_LIMIT` | enum | `CONTINUE` | CONTINUE \\| ABANDON | no |")
        .contains("| `REPORT_BUCKET` | string |  |  | yes | resource CostReportBucket |")
        .contains("| `AWS_REGION` | string |  |  | no |  | Region of the function's AWS clients");
  }

  @Test
  void shouldFailWhenTheTemplateSetsAVariableNoCodeReads(@TempDir Path dir) throws Exception {
    String template = Files.readString(root.resolve("template.yaml"));
    String marker = "          DRAIN_ACTIONS: !Ref DrainActions\n";
    assertThat(template).contains(marker);
    Files.writeString(
        dir.resolve("template.yaml"),
        template.replace(marker, marker + "          DRAIN_SPEED: fast\n"));
    assertThat(new EnvironmentReference(dir).generate().problems())
        .anyMatch(p -> p.startsWith("interruption-drain: template.yaml sets DRAIN_SPEED but no"));
  }

  @Test
  void shouldFailWhenCodeReadsAVariableWithoutADescription(@TempDir Path dir) throws Exception {
    // DRAIN_ACTIONS is described by its parameter; set it literally and nothing describes it
    String template = Files.readString(root.resolve("template.yaml"));
    Files.writeString(
        dir.resolve("template.yaml"),
        template.replace(
            "          DRAIN_ACTIONS: !Ref DrainActions\n", "          DRAIN_ACTIONS: \"\"\n"));
    assertThat(new EnvironmentReference(dir).generate().problems())
        .contains(
            "interruption-drain reads DRAIN_ACTIONS but it has no description: add it to"
                + " EnvironmentReference.DESCRIPTIONS (or feed it from a template parameter with a"
                + " Description)");
  }

  @Test
  void shouldFailWhenAParameterAllowsWhatTheCodeRefuses(@TempDir Path dir) throws Exception {
    String template = Files.readString(root.resolve("template.yaml"));
    String max = "    MaxValue: 1000\n";
    int at = template.indexOf("  DrainEvictionConcurrency:");
    assertThat(template.indexOf(max, at)).isPositive();
    Files.writeString(
        dir.resolve("template.yaml"),
        template.substring(0, at)
            + template.substring(at).replaceFirst(max, "    MaxValue: 5000\n"));
    assertThat(new EnvironmentReference(dir).generate().problems())
        .contains(
            "interruption-drain: parameter DrainEvictionConcurrency (DRAIN_EVICTION_CONCURRENCY)"
                + " allows 1..5000; the code accepts 1..1000");
  }
}

package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.testkit.schema.PublishedSchema;
import io.gpufleet.testkit.schema.SchemaExamples;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The published schema ({@code schemas/preflight-plan.schema.json}) is what the parser checks the
 * structure with: every example plan in the repository passes it, structural mistakes fail it with
 * their path.
 */
class PlanSchemaTest {
  static final Path ROOT = Path.of("../..");
  static final Path PUBLISHED = ROOT.resolve("schemas/preflight-plan.schema.json");

  /**
   * deploy/plans/, docs/capacity-preflight.md's yaml blocks with entries, the plans inside events/
   * payloads.
   */
  static final SchemaExamples EXAMPLES =
      new SchemaExamples(ROOT, "deploy/plans", "docs/capacity-preflight.md", "entries:");

  static Stream<String> examples() throws IOException {
    var out = EXAMPLES.names();
    try (var files = Files.list(ROOT.resolve("events"))) {
      for (Path f : files.filter(f -> f.toString().endsWith(".json")).toList()) {
        if (Json.MAPPER.readTree(f.toFile()).path("plan").isObject()) {
          out.add(f + "#plan");
        }
      }
    }
    assertThat(out).as("examples found").hasSizeGreaterThanOrEqualTo(3);
    return out.stream();
  }

  static JsonNode document(String example) throws IOException {
    if (example.endsWith("#plan")) {
      return Json.MAPPER.readTree(Path.of(example.replace("#plan", "")).toFile()).path("plan");
    }
    return Yaml.MAPPER.readTree(EXAMPLES.text(example));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void shouldAcceptEveryExamplePlanByThePublishedSchemaAndTheParser(String example)
      throws IOException {
    JsonNode plan = document(example);
    var schema = new PublishedSchema(PUBLISHED).compiled();

    assertThat(schema.validate(plan)).isEmpty();
    assertThat(PlanParser.parse(plan, example).entries()).isNotEmpty();
  }

  @Test
  void shouldLoadThePublishedSchemaFromTheClasspathNotASecondCopy() throws IOException {
    assertThat(PublishedSchema.classpathCopy(getClass().getClassLoader(), PlanSchema.RESOURCE))
        .as(PlanSchema.RESOURCE + " on the classpath")
        .isEqualTo(Files.readAllBytes(PUBLISHED));
    assertThat(SchemaExamples.handKeptCopies(ROOT, "preflight-plan.schema.json"))
        .as("a hand-kept copy of the schema in a module")
        .isEmpty();
  }

  @Test
  void shouldBeAValidDraft202012Schema() throws IOException {
    assertThat(new PublishedSchema(PUBLISHED).metaSchemaErrors()).isEmpty();
  }

  /** Structural mistakes in an otherwise valid plan, and the message each must produce. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no instance type        | {instanceType: p5.48xlarge, count: 1, capacityType: spot}                         | {count: 1, capacityType: spot}                                    | entries[0]: needs exactly one of instanceType, instanceTypes or anyOf
          two instance type keys  | {instanceType: p5.48xlarge, count: 1, capacityType: spot}                         | {instanceType: p5.48xlarge, anyOf: [p5e.48xlarge], count: 1, capacityType: spot} | entries[0]: needs exactly one of instanceType, instanceTypes or anyOf
          empty type list         | {instanceType: p5.48xlarge, count: 1, capacityType: spot}                         | {instanceTypes: [], count: 1, capacityType: spot}                 | entries[0].instanceTypes: must be an instance type or a non-empty list of them
          count as text           | {instanceType: p5.48xlarge, count: 1, capacityType: spot}                         | {instanceType: p5.48xlarge, count: many, capacityType: spot}      | entries[0].count: must be a whole number, got 'many'
          count above the limit   | {instanceType: p5.48xlarge, count: 1, capacityType: spot}                         | {instanceType: p5.48xlarge, count: 10001, capacityType: spot}     | entries[0].count: must be at most 10000, got 10001
          missing capacity type   | {instanceType: p5.48xlarge, count: 1, capacityType: spot}                         | {instanceType: p5.48xlarge, count: 1}                             | entries[0].capacityType: is required
          zones as text           | {instanceType: p5.48xlarge, count: 1, capacityType: spot}                         | {instanceType: p5.48xlarge, count: 1, capacityType: spot, zones: us-east-1a} | entries[0].zones: 'us-east-1a' must be a list of availability zones
          entry as text           | {instanceType: p5.48xlarge, count: 1, capacityType: spot}                         | p5.48xlarge                                                       | entries[0]: 'p5.48xlarge' must be a mapping
          regions as a word       | regions: [us-east-1]                                                              | regions: some                                                     | regions: 'some' must be a list of region codes (at least one) or 'all'
          empty region list       | regions: [us-east-1]                                                              | regions: []                                                       | regions: must be a list of region codes (at least one) or 'all'
          unknown top-level field | regions: [us-east-1]                                                              | region: [us-east-1]                                               | region: unknown field (known: entries, name, regions)
          """)
  void shouldRejectAStructuralMistakeWithItsPath(
      String name, String replace, String with, String expected) {
    String valid =
        "regions: [us-east-1]\nentries:\n  - {instanceType: p5.48xlarge, count: 1, capacityType: spot}\n";
    String text = valid.replace(replace.strip(), with.strip());
    assertThat(text).as("the fixture must contain the replaced text").isNotEqualTo(valid);

    assertThatThrownBy(() -> PlanParser.parse(text, "plan.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("plan plan.yaml is invalid")
        .hasMessageContaining(expected.strip());
  }

  @Test
  void shouldAcceptTheCapacityTypeSpellingsTheParserAlwaysAccepted() {
    var plan =
        PlanParser.parse(
            "regions: ALL\nentries:\n"
                + "  - {instanceType: p5.48xlarge, count: 1, capacityType: Spot}\n"
                + "  - {instanceType: p5.48xlarge, count: 1, capacityType: ON_DEMAND}\n"
                + "  - {anyOf: [p5.48xlarge], count: 1, capacityType: od}\n",
            "plan.yaml");
    assertThat(plan.allRegions()).isTrue();
    assertThat(plan.entries()).hasSize(3);
  }

  /**
   * The lean dialect is the validator's draft 2020-12 minus its format checkers, which it skips.
   */
  @Test
  void shouldValidateWithDraft202012LessTheUnusedFormatCheckers() throws IOException {
    var standard = com.networknt.schema.dialect.Dialects.getDraft202012();
    var lean = PlanSchema.dialect();
    assertThat(lean.getId()).isEqualTo(standard.getId());
    assertThat(lean.getIdKeyword()).isEqualTo(standard.getIdKeyword());
    assertThat(lean.getSpecificationVersion()).isEqualTo(standard.getSpecificationVersion());
    assertThat(lean.getVocabularies()).isEqualTo(standard.getVocabularies());
    var expected = new java.util.TreeSet<>(standard.getKeywords().keySet());
    expected.addAll(List.of("errorMessage", "patternErrorMessage"));
    assertThat(new java.util.TreeSet<>(lean.getKeywords().keySet())).isEqualTo(expected);
    // the schema must not rely on what the lean dialect leaves out
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(PlanSchema.RESOURCE)) {
      assertThat(Json.MAPPER.readTree(in).findValues("format"))
          .as("PlanSchema.dialect() has no format checkers: add them before using format")
          .isEmpty();
    }
  }
}

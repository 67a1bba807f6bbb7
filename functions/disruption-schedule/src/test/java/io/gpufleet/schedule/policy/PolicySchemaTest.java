package io.gpufleet.schedule.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.testkit.schema.PublishedSchema;
import io.gpufleet.testkit.schema.SchemaExamples;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The published schema ({@code schemas/schedule-policy.schema.json}) is what the parser checks the
 * structure with: every example policy in the repository passes it, structural mistakes fail it
 * with their path.
 */
class PolicySchemaTest {
  static final Path ROOT = Path.of("../..");
  static final Path PUBLISHED = ROOT.resolve("schemas/schedule-policy.schema.json");

  /**
   * Every policy the repository shows a reader: deploy/policy/, docs/disruption-schedule.md's yaml
   * blocks.
   */
  static final SchemaExamples EXAMPLES =
      new SchemaExamples(ROOT, "deploy/policy", "docs/disruption-schedule.md", "defaultWindow:");

  static Stream<String> examples() throws IOException {
    var out = EXAMPLES.names();
    assertThat(out).as("examples found").hasSizeGreaterThanOrEqualTo(2);
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void shouldAcceptEveryExamplePolicyByThePublishedSchemaAndTheParser(String example)
      throws IOException {
    String text = EXAMPLES.text(example);
    var schema = new PublishedSchema(PUBLISHED).compiled();

    assertThat(schema.validate(Yaml.MAPPER.readTree(text))).isEmpty();
    assertThat(PolicyParser.parse(text, example).defaultWindow()).isNotBlank();
  }

  @Test
  void shouldLoadThePublishedSchemaFromTheClasspathNotASecondCopy() throws IOException {
    assertThat(PublishedSchema.classpathCopy(getClass().getClassLoader(), PolicySchema.RESOURCE))
        .as(PolicySchema.RESOURCE + " on the classpath")
        .isEqualTo(Files.readAllBytes(PUBLISHED));
    assertThat(SchemaExamples.handKeptCopies(ROOT, "schedule-policy.schema.json"))
        .as("a hand-kept copy of the schema in a module")
        .isEmpty();
  }

  @Test
  void shouldBeAValidDraft202012Schema() throws IOException {
    assertThat(new PublishedSchema(PUBLISHED).metaSchemaErrors()).isEmpty();
  }

  static final String MINIMAL =
      """
      timeZone: UTC
      defaultWindow: off-hours
      windows:
        business-hours: { days: mon-fri, hours: "08:00-19:00" }
      """;

  /** Structural mistakes, each alone in a minimal policy: the schema words them, with the path. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          missing days            | { days: mon-fri, hours: "08:00-19:00" } | { hours: "08:00-19:00" }            | windows.business-hours.days: is required
          unknown window field    | { days: mon-fri, hours: "08:00-19:00" } | { days: mon-fri, hour: "08-19" }     | windows.business-hours.hour: unknown field (known: days, hours, leadTime)
          window not a mapping    | { days: mon-fri, hours: "08:00-19:00" } | weekdays                             | windows.business-hours: 'weekdays' must be a mapping with days and hours
          bad window name         | business-hours:                         | Business_Hours:                      | windows.Business_Hours: 'Business_Hours' is not a valid name
          days of the wrong type  | days: mon-fri                           | days: 5                              | windows.business-hours.days: '5' must be a list of days or a string like mon-fri
          no days                 | days: mon-fri                           | days: []                             | windows.business-hours.days: must be a list of days or a string like mon-fri
          windows as a list       | windows:\\n  business-hours: { days: mon-fri, hours: "08:00-19:00" } | windows: [a] | windows: must be a mapping of window name to {days, hours}
          bad default window name | defaultWindow: off-hours                | defaultWindow: Off Hours             | defaultWindow: 'Off Hours' is not a valid name
          blank time zone         | timeZone: UTC                           | timeZone: ""                         | timeZone: must be a non-empty string
          unsupported apiVersion  | timeZone: UTC                           | apiVersion: gpufleet.io/v2\\ntimeZone: UTC | apiVersion: 'gpufleet.io/v2' is not supported (use gpufleet.io/v1)
          bad exclude annotation  | timeZone: UTC                           | excludeAnnotation: "-bad-"\\ntimeZone: UTC | excludeAnnotation: '-bad-' is not a valid annotation key
          holiday not a date      | timeZone: UTC                           | holidays: [christmas]\\ntimeZone: UTC | holidays[0]: 'christmas' is not a date (YYYY-MM-DD)
          """)
  void shouldRejectAStructuralMistakeWithItsPath(
      String name, String replace, String with, String expected) {
    String text =
        MINIMAL.replace(replace.strip().replace("\\n", "\n"), with.strip().replace("\\n", "\n"));
    assertThat(text).as("the fixture must contain the replaced text").isNotEqualTo(MINIMAL);

    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .isInstanceOfSatisfying(
            PolicyException.class,
            e ->
                assertThat(e.problems())
                    .anySatisfy(m -> assertThat(m).startsWith(expected.strip())));
  }

  static final String RULES =
      """
      timeZone: UTC
      defaultWindow: off-hours
      nodePools:
        - name: gpu
          selector: { names: [gpu] }
          windows: { off-hours: { budgets: [{ nodes: "10%" }] } }
      workloads:
        - name: batch
          selector: { namespaces: [ml] }
          replicas: { off-hours: 0 }
      """;

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no budgets              | budgets: [{ nodes: "10%" }]            | budgets: []                      | nodePools[0].windows.off-hours.budgets: must list between 1 and 50 budgets (Karpenter's limit), like {nodes: "10%"}
          budget without nodes    | [{ nodes: "10%" }]                     | [{ reasons: [Empty] }]           | nodePools[0].windows.off-hours.budgets[0].nodes: is required
          numeric node count      | nodes: "10%"                           | nodes: -3                        | nodePools[0].windows.off-hours.budgets[0].nodes: '-3' is neither a percentage ("10%") nor a node count
          no selector             | - name: gpu\\n    selector: { names: [gpu] } | - name: gpu                | nodePools[0].selector: is required
          selector as text        | selector: { names: [gpu] }             | selector: gpu                    | nodePools[0].selector: 'gpu' is required: {names: [...]} and/or {labels: {...}}
          bad rule name           | - name: gpu                            | - name: GPU!                     | nodePools[0].name: 'GPU!' is not a valid name
          labels and annotation   | selector: { namespaces: [ml] }         | selector: { labels: { a: b }, annotation: x/y } | workloads[0].selector: give labels or an opt-in annotation, not both
          replicas as text        | replicas: { off-hours: 0 }             | replicas: { off-hours: none }    | workloads[0].replicas.off-hours: 'none' is not a replica count (0 or more)
          no replicas             | replicas: { off-hours: 0 }             | replicas: {}                     | workloads[0].replicas: must map at least one window name to a replica count
          empty kinds             | replicas: { off-hours: 0 }             | kinds: []\\n    replicas: { off-hours: 0 } | workloads[0].kinds: must list kinds (Deployment, StatefulSet, ScaledObject, HorizontalPodAutoscaler)
          unknown rule field      | replicas: { off-hours: 0 }             | replicas: { off-hours: 0 }\\n    replica: 1 | workloads[0].replica: unknown field (known: kinds, name, replicas, selector)
          """)
  void shouldRejectAStructuralMistakeInARuleWithItsPath(
      String name, String replace, String with, String expected) {
    String text =
        RULES.replace(
            replace.strip().replace("\\n", "\n"),
            with == null ? "" : with.strip().replace("\\n", "\n"));
    assertThat(text).as("the fixture must contain the replaced text").isNotEqualTo(RULES);

    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .isInstanceOfSatisfying(
            PolicyException.class,
            e ->
                assertThat(e.problems())
                    .anySatisfy(m -> assertThat(m).startsWith(expected.strip())));
  }

  @Test
  void shouldRejectMoreThanFiftyBudgetsAsKarpenterDoes() {
    var budgets = new ArrayList<String>();
    for (int i = 0; i < 51; i++) {
      budgets.add("{ nodes: \"1\" }");
    }
    String text = RULES.replace("[{ nodes: \"10%\" }]", "[" + String.join(", ", budgets) + "]");

    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .isInstanceOfSatisfying(
            PolicyException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "nodePools[0].windows.off-hours.budgets: must list between 1 and 50"
                            + " budgets (Karpenter's limit), like {nodes: \"10%\"}"));
  }

  @Test
  void shouldReportStructuralAndSemanticProblemsTogetherOncePerPlace() {
    String text =
        MINIMAL
            .replace("UTC", "Mars/Olympus")
            .replace("hours: \"08:00-19:00\"", "hours: \"8am\", leadTime: soon");

    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .isInstanceOfSatisfying(
            PolicyException.class,
            e ->
                assertThat(e.problems())
                    .containsExactlyInAnyOrder(
                        "windows.business-hours.hours: '8am' is not HH:MM-HH:MM (e.g. 08:00-19:00,"
                            + " 22:00-06:00)",
                        "windows.business-hours.leadTime: 'soon' is not a duration like 30s, 15m,"
                            + " 1h30m",
                        "timeZone: unknown time zone 'Mars/Olympus' (use an IANA name like"
                            + " Europe/Berlin)"));
  }

  @Test
  void shouldAcceptTheLenientSpellingsTheParserAlwaysAccepted() {
    String text =
        RULES
            .replace(
                "selector: { namespaces: [ml] }",
                "selector: { namespaces: [ml] }\n    kinds: [hpa, DEPLOYMENT, scaled_object]")
            .replace("nodes: \"10%\"", "nodes: 3");
    Policy p = PolicyParser.parse(text, "p.yaml");
    assertThat(p.workloads().get(0).kinds()).hasSize(3);
    assertThat(p.nodePools().get(0).windows().get("off-hours").budgets().get(0).nodes())
        .isEqualTo("3");
    assertThat(List.of(PolicyParser.parse(MINIMAL.replace("mon-fri", "Monday-FRI"), "p").windows()))
        .hasSize(1);
  }

  /**
   * The lean dialect is the validator's draft 2020-12 minus its format checkers, which it skips.
   */
  @Test
  void shouldValidateWithDraft202012LessTheUnusedFormatCheckers() throws IOException {
    var standard = com.networknt.schema.dialect.Dialects.getDraft202012();
    var lean = PolicySchema.dialect();
    assertThat(lean.getId()).isEqualTo(standard.getId());
    assertThat(lean.getIdKeyword()).isEqualTo(standard.getIdKeyword());
    assertThat(lean.getSpecificationVersion()).isEqualTo(standard.getSpecificationVersion());
    assertThat(lean.getVocabularies()).isEqualTo(standard.getVocabularies());
    var expected = new java.util.TreeSet<>(standard.getKeywords().keySet());
    expected.addAll(List.of("errorMessage", "patternErrorMessage"));
    assertThat(new java.util.TreeSet<>(lean.getKeywords().keySet())).isEqualTo(expected);
    // the schema must not rely on what the lean dialect leaves out
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(PolicySchema.RESOURCE)) {
      assertThat(Json.MAPPER.readTree(in).findValues("format"))
          .as("PolicySchema.dialect() has no format checkers: add them before using format")
          .isEmpty();
    }
  }
}

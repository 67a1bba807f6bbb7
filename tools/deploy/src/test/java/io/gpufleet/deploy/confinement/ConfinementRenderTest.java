package io.gpufleet.deploy.confinement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.CfnYaml;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.sim.real.FunctionIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The RBAC and admission manifests are one rendering of deploy/confinement: the committed ones for
 * the defaults, which are the template's; a non-default deploy gets its groups and taint
 * everywhere.
 */
class ConfinementRenderTest {
  static final Path ROOT = root();

  static Path root() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve(ConfinementRender.SPECS))) {
        return d;
      }
    }
    throw new IllegalStateException("no deploy/confinement above the working directory");
  }

  @Test
  void shouldCommitExactlyTheRenderingOfTheDefaults() throws IOException {
    // Given the rendering for the defaults
    Map<Path, String> rendered = ConfinementRender.render(ROOT, Map.of());

    // Then every committed manifest is that rendering, and nothing under deploy/rbac or
    // deploy/admission is written by hand
    for (var e : rendered.entrySet()) {
      Path committed = ROOT.resolve("deploy").resolve(e.getKey());
      assertThat(committed).as("run ./gpufleet confinement render").exists();
      assertThat(Files.readString(committed))
          .as(committed + " (run ./gpufleet confinement render)")
          .isEqualTo(e.getValue());
    }
    var onDisk = new ArrayList<Path>();
    for (String dir : List.of("rbac", "admission")) {
      try (Stream<Path> s = Files.list(ROOT.resolve("deploy").resolve(dir))) {
        s.forEach(p -> onDisk.add(Path.of(dir, p.getFileName().toString())));
      }
    }
    assertThat(onDisk).containsExactlyInAnyOrderElementsOf(rendered.keySet());
  }

  @Test
  void shouldDeclareEveryParameterAsTheTemplateDoes() {
    // Given the template's parameters
    @SuppressWarnings("unchecked")
    var template = (Map<String, Object>) CfnYaml.load(read(ROOT.resolve("template.yaml")));
    @SuppressWarnings("unchecked")
    var parameters = (Map<String, Map<String, Object>>) template.get("Parameters");
    var specs = ConfinementRender.parameters(ROOT);

    // Then each spec parameter is a template parameter with the same default and the same check
    specs.forEach(
        (name, p) -> {
          var t = parameters.get(name);
          assertThat(t).as("template parameter " + name).isNotNull();
          assertThat(String.valueOf(t.get("Default")))
              .as(name + " default")
              .isEqualTo(p.defaultValue());
          switch (p.kind()) {
            case ConfinementSpec.GROUP ->
                assertThat(t.get("AllowedPattern")).isEqualTo(ConfinementSpec.GROUP_PATTERN);
            case ConfinementSpec.TAINT_KEY ->
                assertThat(t.get("AllowedPattern")).isEqualTo(ConfinementSpec.TAINT_KEY_PATTERN);
            case ConfinementSpec.TAINT_EFFECT ->
                assertThat(
                        ((List<?>) t.get("AllowedValues")).stream().map(String::valueOf).toList())
                    .containsExactlyInAnyOrderElementsOf(ConfinementSpec.TAINT_EFFECTS);
            default -> throw new AssertionError(name + ": kind " + p.kind());
          }
        });
    // and every Kubernetes group or drain taint parameter of the template is in a spec
    assertThat(
            parameters.keySet().stream()
                .filter(n -> n.endsWith("KubernetesGroup") || n.startsWith("DrainTaint")))
        .allSatisfy(n -> assertThat(specs).containsKey(n));
  }

  @Test
  void shouldGiveTheTestIdentitiesTheSpecsDefaultGroups() {
    var p = ConfinementRender.parameters(ROOT);
    assertThat(FunctionIdentity.INTERRUPTION_DRAIN.groups())
        .containsExactly(p.get("KubernetesGroup").defaultValue());
    assertThat(FunctionIdentity.INTERRUPTION_DRAIN_FORCE_DELETE.groups())
        .containsExactly(
            p.get("KubernetesGroup").defaultValue(),
            p.get("DrainForceDeleteKubernetesGroup").defaultValue());
    assertThat(FunctionIdentity.DISRUPTION_SCHEDULE.groups())
        .containsExactly(p.get("ScheduleKubernetesGroup").defaultValue());
    assertThat(FunctionIdentity.COST_REPORT.groups())
        .containsExactly(p.get("CostKubernetesGroup").defaultValue());
    assertThat(FunctionIdentity.CAPACITY_PREFLIGHT.groups())
        .containsExactly(p.get("PreflightKubernetesGroup").defaultValue());
  }

  @Test
  void shouldPutNonDefaultGroupsAndTaintIntoEveryManifest() {
    // Given a deploy with other groups and a NoExecute taint of another key
    var overrides =
        Map.of(
            "KubernetesGroup", "ops-drain",
            "DrainForceDeleteKubernetesGroup", "ops-drain-force",
            "DrainTaintKey", "example.com/going-away",
            "DrainTaintEffect", "NoExecute",
            "ScheduleKubernetesGroup", "ops-schedule",
            "CostKubernetesGroup", "ops-cost",
            "PreflightKubernetesGroup", "ops-preflight");

    // When the manifests are rendered for it
    var rendered = ConfinementRender.render(ROOT, overrides);

    // Then no default group or taint is left in any of them, and the new ones are where they match
    String all = String.join("\n", rendered.values());
    for (String literal :
        List.of(
            "'gpufleet-drain' in",
            "name: gpufleet-drain\n",
            "gpufleet-drain-force\n",
            "'gpufleet-schedule' in",
            "name: gpufleet-schedule\n",
            "name: gpufleet-cost\n",
            "name: gpufleet-preflight\n",
            "'NoSchedule'")) {
      assertThat(all).as("default literal " + literal).doesNotContain(literal);
    }
    // the default taint key (the pod annotations gpufleet.io/interruption-kind/-deadline are not
    // it)
    assertThat(all)
        .as("default taint key")
        .doesNotContainPattern("gpufleet\\.io/interruption(?!-(kind|deadline))");
    String drain = rendered.get(Path.of("admission", "interruption-drain.yaml"));
    assertThat(drain)
        .contains("'ops-drain' in request.userInfo.groups")
        .contains("t.key == 'example.com/going-away'")
        .contains("t.effect == 'NoExecute'");
    assertThat(rendered.get(Path.of("admission", "disruption-schedule.yaml")))
        .contains("'ops-schedule' in request.userInfo.groups");
    assertThat(rendered.get(Path.of("rbac", "cost-report.yaml"))).contains("name: ops-cost");
  }

  @Test
  void shouldRefuseAValueTheTemplateWouldRefuseBeforeRenderingAnything() {
    assertThatThrownBy(
            () -> ConfinementRender.render(ROOT, Map.of("KubernetesGroup", "system:masters")))
        .hasMessageContaining("KubernetesGroup='system:masters' starts with 'system:'");
    assertThatThrownBy(() -> ConfinementRender.render(ROOT, Map.of("DrainTaintEffect", "Evict")))
        .hasMessageContaining("DrainTaintEffect='Evict' is not a taint effect");
    assertThatThrownBy(() -> ConfinementRender.render(ROOT, Map.of("DrainTaintKey", "a b")))
        .hasMessageContaining("DrainTaintKey='a b' is not a taint key");
    assertThatThrownBy(() -> ConfinementRender.render(ROOT, Map.of("KubernetesGrup", "x")))
        .hasMessageContaining("unknown parameter KubernetesGrup");
    assertThatThrownBy(
            () -> ConfinementRender.render(ROOT, Map.of("ScheduleKubernetesGroup", "x'||true")))
        .hasMessageContaining("is not a Kubernetes group name");
  }

  @Test
  void shouldWriteYamlThatReadsBackAsThePoliciesItMeant() throws IOException {
    // Given the rendered admission manifests
    var rendered = ConfinementRender.render(ROOT, Map.of());
    String schedule = rendered.get(Path.of("admission", "disruption-schedule.yaml"));

    // When they are read back as YAML
    var docs = new ArrayList<JsonNode>();
    try (var parser = Yaml.MAPPER.getFactory().createParser(schedule)) {
      Yaml.MAPPER.readValues(parser, JsonNode.class).forEachRemaining(docs::add);
    }

    // Then each policy compares owner references, finalizers and every non-owned field, with the
    // message it was given (folding kept it one line)
    JsonNode nodePool = docs.get(0);
    assertThat(nodePool.at("/metadata/name").asText())
        .isEqualTo("gpufleet-disruption-schedule-nodepool-fields");
    var messages = new ArrayList<String>();
    var expressions = new ArrayList<String>();
    nodePool
        .at("/spec/validations")
        .forEach(
            v -> {
              messages.add(v.path("message").asText());
              expressions.add(v.path("expression").asText());
            });
    assertThat(messages)
        .contains(
            "the disruption schedule may change only spec.disruption.budgets,"
                + " spec.disruption.consolidateAfter of a NodePool, not spec.template",
            "the disruption schedule may not change the owner references, finalizers or"
                + " generateName of a NodePool");
    assertThat(String.join("\n", expressions))
        .contains("object.metadata.ownerReferences")
        .contains("object.metadata.finalizers")
        .contains("object.spec.replicas == oldObject.spec.replicas")
        .contains("object.spec.disruption.consolidationPolicy")
        .contains("object.status == oldObject.status")
        .doesNotContain("object.spec.disruption.budgets ==");
    assertThat(nodePool.at("/spec/matchConstraints/resourceRules/0/resources"))
        .extracting(JsonNode::asText)
        .containsExactly("nodepools", "nodepools/status");
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}

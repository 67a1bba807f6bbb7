package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.CfnYaml;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.schedule.policy.Guardrails;
import io.gpufleet.schedule.policy.PolicyParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The policy the stack creates in its own SSM parameter is one the schedule accepts. */
class TemplatePolicyStoreTest {
  @Test
  @SuppressWarnings("unchecked")
  void shouldStartTheStacksPolicyParameterWithAValidPolicyThatChangesNothing() throws Exception {
    // Given the value template.yaml gives the policy parameter it creates
    Path root = ProjectHome.findRoot(Path.of(""));
    var template = CfnYaml.load(Files.readString(root.resolve("template.yaml")));
    var resources = (Map<String, Object>) template.get("Resources");
    var parameter = (Map<String, Object>) resources.get("SchedulePolicyParameter");
    String value = String.valueOf(((Map<String, Object>) parameter.get("Properties")).get("Value"));

    // When the schedule reads it
    var policy = PolicyParser.parse(value, "SchedulePolicyParameter");

    // Then it is valid, within the guardrails, and selects nothing to change
    assertThat(Guardrails.defaults().problems(policy)).isEmpty();
    assertThat(policy.nodePools()).isEmpty();
    assertThat(policy.workloads()).isEmpty();
  }
}

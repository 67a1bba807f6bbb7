package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

class PlanParserTest {

  @Test
  void shouldReadAYamlPlanWithAnyOfTypesAndZones() {
    var plan =
        PlanParser.parse(
            """
            name: llm
            regions: [us-east-1, us-west-2]
            entries:
              - name: trainers
                instanceTypes: [p5.48xlarge, p5e.48xlarge]
                count: 4
                capacityType: spot
              - instanceType: g6e.12xlarge
                count: 8
                capacityType: on-demand
                zones: [us-east-1a]
            """,
            "plan.yaml");

    assertThat(plan.name()).isEqualTo("llm");
    assertThat(plan.regions()).containsExactly("us-east-1", "us-west-2");
    assertThat(plan.allRegions()).isFalse();
    assertThat(plan.entries()).hasSize(2);
    assertThat(plan.entries().get(0).instanceTypes())
        .containsExactly("p5.48xlarge", "p5e.48xlarge");
    assertThat(plan.entries().get(0).capacityType()).isEqualTo(CapacityType.SPOT);
    assertThat(plan.entries().get(1).zones()).containsExactly("us-east-1a");
    assertThat(plan.entries().get(1).capacityType()).isEqualTo(CapacityType.ON_DEMAND);
  }

  @Test
  void shouldReadJsonAndAllRegions() {
    var plan =
        PlanParser.parse(
            "{\"regions\":\"all\",\"entries\":[{\"instanceType\":\"trn2.48xlarge\",\"count\":1,"
                + "\"capacityType\":\"on-demand\"}]}",
            "payload");
    assertThat(plan.allRegions()).isTrue();
    assertThat(plan.instanceTypes()).containsExactly("trn2.48xlarge");
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> invalidPlans() {
    return java.util.stream.Stream.of(
        org.junit.jupiter.params.provider.Arguments.of(
            "entries: []", "entries: must list at least one entry"),
        org.junit.jupiter.params.provider.Arguments.of(
            "regions: [us-east-1]", "entries: is required"),
        org.junit.jupiter.params.provider.Arguments.of(
            "regions: [mars-north-1]\nentries: [{instanceType: p5.48xlarge, count: 1, capacityType: spot}]",
            "regions[0]: unknown region 'mars-north-1'"),
        org.junit.jupiter.params.provider.Arguments.of(
            "entries: [{instanceType: p9.48xlarge, count: 1, capacityType: spot}]",
            "entries[0].instanceType: unknown instance type 'p9.48xlarge'"),
        org.junit.jupiter.params.provider.Arguments.of(
            "entries: [{instanceType: p5.48xlarge, count: 0, capacityType: spot}]",
            "entries[0].count: must be at least 1, got 0"),
        org.junit.jupiter.params.provider.Arguments.of(
            "entries: [{instanceType: p5.48xlarge, count: -2, capacityType: spot}]",
            "entries[0].count: must be at least 1, got -2"),
        org.junit.jupiter.params.provider.Arguments.of(
            "entries: [{instanceType: p5.48xlarge, count: 1, capacityType: reserved}]",
            "entries[0].capacityType: 'reserved' is not spot or on-demand"),
        org.junit.jupiter.params.provider.Arguments.of(
            "entries: [{instanceType: p5.48xlarge, count: 1, capacityType: spot, zones: [moon-1a]}]",
            "entries[0].zones[0]: 'moon-1a' is not an availability zone"),
        org.junit.jupiter.params.provider.Arguments.of(
            "entries: [{instanceType: p5.48xlarge, cnt: 1, capacityType: spot}]",
            "entries[0].cnt: unknown field (known: anyOf, capacityType, count, instanceType,"
                + " instanceTypes, name, zones)"));
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("invalidPlans")
  void shouldRejectAnInvalidPlanWithAPreciseMessage(String yaml, String expected) {
    assertThatThrownBy(() -> PlanParser.parse(yaml.replace("\\n", "\n"), "plan.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("plan plan.yaml is invalid")
        .hasMessageContaining(expected);
  }

  @Test
  void shouldReportEveryProblemAtOnce() {
    assertThatThrownBy(
            () ->
                PlanParser.parse(
                    "regions: [nowhere-1]\nentries:\n  - {instanceType: x9.big, count: 0, capacityType: spot}\n",
                    "p.yaml"))
        .hasMessageContaining("3 problems")
        .hasMessageContaining("regions[0]")
        .hasMessageContaining("entries[0].instanceType")
        .hasMessageContaining("entries[0].count");
  }

  @Test
  void shouldRejectTextThatIsNotYaml() {
    assertThatThrownBy(() -> PlanParser.parse("entries: [unclosed", "broken.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("plan broken.yaml is not valid YAML or JSON");
  }
}

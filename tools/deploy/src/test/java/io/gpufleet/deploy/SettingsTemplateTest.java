package io.gpufleet.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.CfnYaml;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.scenario.ProjectHome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each function in template.yaml reads its settings document where {@link
 * SettingsDocument#parameterName} (the CLI's {@code settings put} and doctor) says it is, and its
 * role may read that one parameter and no other.
 */
class SettingsTemplateTest {
  static final String STACK = "${AWS::StackName}";

  @ParameterizedTest
  @CsvSource({
    "interruption-drain, InterruptionDrainFunction, InterruptionDrainRole",
    "disruption-schedule, DisruptionScheduleFunction, DisruptionScheduleRole",
    "capacity-preflight, CapacityPreflightFunction, CapacityPreflightRole",
    "cost-report, CostReportFunction, CostReportRole"
  })
  void shouldPointEachFunctionAtItsOwnDocumentAndGrantOnlyThatParameter(
      String function, String resource, String role) throws Exception {
    var template =
        CfnYaml.load(Files.readString(ProjectHome.findRoot(Path.of("")).resolve("template.yaml")));
    var resources = map(template.get("Resources"));
    String parameter = SettingsDocument.parameterName(STACK, function);

    var variables =
        map(
            map(map(map(resources.get(resource)).get("Properties")).get("Environment"))
                .get("Variables"));
    assertThat(variables.get(SettingsDocument.VARIABLE))
        .isEqualTo(Map.of("Fn::Sub", "ssm:" + parameter));

    var grants = new ArrayList<Object>();
    for (Object policy : list(map(map(resources.get(role)).get("Properties")).get("Policies"))) {
      for (Object statement : list(map(map(policy).get("PolicyDocument")).get("Statement"))) {
        var s = map(statement);
        if (String.valueOf(s.get("Action")).contains("ssm:GetParameter")) {
          grants.add(s.get("Resource"));
        }
      }
    }
    String arn = "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter" + parameter;
    if (function.equals("disruption-schedule")) {
      // the schedule also reads its policy's parameter (SchedulePolicy)
      assertThat(grants).contains(Map.of("Fn::Sub", arn));
    } else {
      assertThat(grants).containsExactly(Map.of("Fn::Sub", arn));
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  static List<?> list(Object o) {
    return o instanceof List<?> l ? l : List.of();
  }
}

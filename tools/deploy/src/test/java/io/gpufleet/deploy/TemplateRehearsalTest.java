package io.gpufleet.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.CfnYaml;
import io.gpufleet.scenario.ProjectHome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The stack's rehearsal experiment can interrupt nothing but Spot instances of its cluster: its FIS
 * role allows one action on instances tagged for the cluster, and the experiment targets only the
 * instance `gpufleet rehearse` tagged for this stack.
 */
@SuppressWarnings("unchecked")
class TemplateRehearsalTest {
  private static Map<String, Object> resources;
  private static Map<String, Object> outputs;

  @BeforeAll
  static void read() throws Exception {
    Path root = ProjectHome.findRoot(Path.of(""));
    var template = CfnYaml.load(Files.readString(root.resolve("template.yaml")));
    resources = (Map<String, Object>) template.get("Resources");
    outputs = (Map<String, Object>) template.get("Outputs");
  }

  private static Map<String, Object> properties(String resource) {
    return (Map<String, Object>) ((Map<String, Object>) resources.get(resource)).get("Properties");
  }

  @Test
  void shouldLetTheRehearsalRoleSendSpotInterruptionsOnlyToInstancesTaggedForTheCluster() {
    var role = properties("RehearsalRole");
    var trust =
        (List<Map<String, Object>>)
            ((Map<String, Object>) role.get("AssumeRolePolicyDocument")).get("Statement");
    assertThat(trust)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.get("Principal")).isEqualTo(Map.of("Service", "fis.amazonaws.com"));
              assertThat(s.get("Action")).isEqualTo("sts:AssumeRole");
              assertThat(s.get("Condition"))
                  .isEqualTo(
                      Map.of(
                          "StringEquals",
                          Map.of("aws:SourceAccount", Map.of("Ref", "AWS::AccountId"))));
            });
    assertThat(role).doesNotContainKeys("ManagedPolicyArns", "PermissionsBoundary");
    var policies = (List<Map<String, Object>>) role.get("Policies");
    assertThat(policies).hasSize(1);
    var statements =
        (List<Map<String, Object>>)
            ((Map<String, Object>) policies.get(0).get("PolicyDocument")).get("Statement");
    assertThat(statements).hasSize(2);
    for (var s : statements) {
      assertThat(s.get("Effect")).isEqualTo("Allow");
      assertThat(s.get("Action")).isEqualTo("ec2:SendSpotInstanceInterruptions");
      assertThat(s.get("Resource"))
          .isEqualTo(
              Map.of(
                  "Fn::Sub",
                  "arn:${AWS::Partition}:ec2:${AWS::Region}:${AWS::AccountId}:instance/*"));
      var equals =
          (Map<String, Object>) ((Map<String, Object>) s.get("Condition")).get("StringEquals");
      assertThat(((Map<String, Object>) s.get("Condition")).keySet())
          .containsExactly("StringEquals");
      assertThat(equals).hasSize(1);
      assertThat(equals.values()).containsExactly(Map.of("Ref", "ClusterName"));
    }
    assertThat(
            statements.stream()
                .flatMap(
                    s ->
                        ((Map<String, Map<String, Object>>) s.get("Condition"))
                            .get("StringEquals").keySet().stream()))
        .containsExactlyInAnyOrder(
            "aws:ResourceTag/eks:eks-cluster-name", "aws:ResourceTag/eks:cluster-name");
  }

  @Test
  void shouldSendOneSpotInterruptionToTheNodeTheRehearsalTaggedForThisStack() {
    var t = properties("RehearsalExperimentTemplate");
    assertThat(t.get("RoleArn")).isEqualTo(Map.of("Fn::GetAtt", "RehearsalRole.Arn"));
    var actions = (Map<String, Map<String, Object>>) t.get("Actions");
    assertThat(actions.values())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.get("ActionId")).isEqualTo("aws:ec2:send-spot-instance-interruptions");
              assertThat(a.get("Targets")).isEqualTo(Map.of("SpotInstances", "RehearsedNode"));
            });
    var targets = (Map<String, Map<String, Object>>) t.get("Targets");
    assertThat(targets.keySet()).containsExactly("RehearsedNode");
    var node = targets.get("RehearsedNode");
    assertThat(node.get("ResourceType")).isEqualTo("aws:ec2:spot-instance");
    assertThat(node.get("SelectionMode")).isEqualTo("COUNT(1)");
    assertThat(node.get("ResourceTags"))
        .isEqualTo(Map.of("gpufleet:rehearse", Map.of("Ref", "AWS::StackName")));
    assertThat(node).doesNotContainKey("ResourceArns");
  }

  @Test
  void shouldTargetTheTagAndDeadlineGpufleetRehearseUsesAndNameTheTemplateInTheOutputItReads() {
    var t = properties("RehearsalExperimentTemplate");
    var node = ((Map<String, Map<String, Object>>) t.get("Targets")).get("RehearsedNode");
    assertThat(((Map<String, Object>) node.get("ResourceTags")).keySet())
        .containsExactly(Rehearsal.TAG);
    var action = ((Map<String, Map<String, Object>>) t.get("Actions")).values().iterator().next();
    assertThat(
            java.time.Duration.parse(
                (String)
                    ((Map<String, Object>) action.get("Parameters"))
                        .get("durationBeforeInterruption")))
        .isEqualTo(Rehearsal.DEADLINE);
    assertThat((Map<String, Object>) outputs.get(Rehearsal.TEMPLATE_OUTPUT))
        .containsEntry("Value", Map.of("Ref", "RehearsalExperimentTemplate"));
  }
}

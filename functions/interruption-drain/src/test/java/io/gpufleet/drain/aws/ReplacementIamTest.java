package io.gpufleet.drain.aws;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.CfnYaml;
import io.gpufleet.drain.EarlyReplacement;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimAutoScalingGroups;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The drain role's Auto Scaling grants for replacement before removal, held to the code: they are
 * exactly the calls a raise and a finish make (recorded against the simulated service through the
 * real SDK client), every call that changes a group is limited to groups carrying {@link
 * EarlyReplacement#OPT_IN}=true, and tag writes to the raise's own keys. (No IAM evaluator that
 * honours resource-tag conditions runs here: moto's ignores them, so the condition is checked as
 * written.)
 */
@SuppressWarnings("unchecked")
class ReplacementIamTest {
  static final Set<String> REPLACEMENT_SIDS =
      Set.of("FindReplacementGroups", "ReplaceEarlyInOptedInGroups", "RecordRaisesOnOptedInGroups");

  static List<Map<String, Object>> drainStatements() throws Exception {
    Path root = Path.of("").toAbsolutePath();
    while (!Files.exists(root.resolve("template.yaml"))) {
      root = root.getParent();
    }
    var template = CfnYaml.load(Files.readString(root.resolve("template.yaml")));
    var role =
        (Map<String, Object>)
            ((Map<String, Object>) template.get("Resources")).get("InterruptionDrainRole");
    var policies =
        (List<Map<String, Object>>) ((Map<String, Object>) role.get("Properties")).get("Policies");
    return (List<Map<String, Object>>)
        ((Map<String, Object>) policies.get(0).get("PolicyDocument")).get("Statement");
  }

  static boolean isReplacement(Map<String, Object> statement) {
    return statement.get("Sid") instanceof String sid && REPLACEMENT_SIDS.contains(sid);
  }

  static List<String> actions(Map<String, Object> statement) {
    Object a = statement.get("Action");
    return a instanceof List<?> l ? (List<String>) l : List.of((String) a);
  }

  /** The Auto Scaling operations one raise and its finish make, as IAM actions. */
  static Set<String> callsMade() {
    try (var stub = AwsStubServer.start();
        var client = AutoScalingLifecycleAdapterTest.client(stub.endpoint())) {
      var asg = new SimAutoScalingGroups(stub);
      asg.add("gpu-ng", 1, 4, false, Map.of(EarlyReplacement.OPT_IN, "true"), "i-01", "i-02");
      var replacement = new EarlyReplacement(new AutoScalingReplacementAdapter(client));
      replacement.raise("i-01", DrainKind.SPOT_INTERRUPTION).orElseThrow();
      replacement.finish("i-01").orElseThrow();
      var out = new TreeSet<String>();
      stub.calls().forEach(c -> out.add("autoscaling:" + c.operation()));
      return out;
    }
  }

  @Test
  void shouldGrantExactlyTheCallsReplacementMakesAndOnlyOnOptedInGroups() throws Exception {
    var statements = drainStatements().stream().filter(ReplacementIamTest::isReplacement).toList();
    assertThat(statements).hasSize(REPLACEMENT_SIDS.size());

    // the grants are the calls made, no more, no fewer
    var granted = new TreeSet<String>();
    statements.forEach(s -> granted.addAll(actions(s)));
    assertThat(granted).isEqualTo(callsMade());
    // and no other statement of the role grants an Auto Scaling call replacement makes
    for (var s : drainStatements()) {
      if (!isReplacement(s)) {
        // a conditional statement ({"Fn::If": [condition, statement, ...]}) is looked into
        assertThat(String.valueOf(s)).doesNotContain(granted.toArray(String[]::new));
      }
    }

    for (var s : statements) {
      var condition = (Map<String, Map<String, Object>>) s.get("Condition");
      if (actions(s).stream().allMatch(a -> a.startsWith("autoscaling:Describe"))) {
        // Describe* take no resource-level permissions
        assertThat(s.get("Resource")).isEqualTo("*");
        continue;
      }
      // every change is held to the opted-in groups, by the code's own tag
      assertThat(condition.get("StringEquals"))
          .containsEntry("autoscaling:ResourceTag/" + EarlyReplacement.OPT_IN, "true");
      assertThat(s.get("Resource")).isNotEqualTo("*");
      if (actions(s).contains("autoscaling:CreateOrUpdateTags")) {
        assertThat(condition.get("ForAllValues:StringLike"))
            .isEqualTo(Map.of("aws:TagKeys", List.of(EarlyReplacement.RAISED_FOR + "*")));
      }
    }
  }
}

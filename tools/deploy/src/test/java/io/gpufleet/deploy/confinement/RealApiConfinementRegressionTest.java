package io.gpufleet.deploy.confinement;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.deploy.confinement.ApiCalls.Caller;
import io.gpufleet.deploy.confinement.ConfinementAttack.Outcome;
import io.gpufleet.deploy.confinement.ConfinementAttack.Target;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The adversarial suite can fail: the schedule's NodePool policy rendered for a non-default group
 * holds (nothing admitted), and the same policy with one field left out lets the suite's core check
 * find an admitted write of exactly that field.
 */
@RealApiServerTest
class RealApiConfinementRegressionTest {
  static final String GROUP = "gpufleet-schedule-mutant";
  static final String POLICY = "gpufleet-disruption-schedule-nodepool-fields";

  /** The NodePool policy and binding rendered for {@link #GROUP}, renamed, then mutated. */
  static List<JsonNode> policy(UnaryOperator<ArrayNode> mutation) throws IOException {
    String text =
        ConfinementRender.render(
                ConfinementRenderTest.ROOT, Map.of("ScheduleKubernetesGroup", GROUP))
            .get(Path.of("admission", "disruption-schedule.yaml"));
    var docs = new ArrayList<JsonNode>();
    try (var parser = Yaml.MAPPER.getFactory().createParser(text)) {
      Yaml.MAPPER.readValues(parser, JsonNode.class).forEachRemaining(docs::add);
    }
    var out = new ArrayList<JsonNode>();
    for (JsonNode d : docs) {
      if (!d.at("/metadata/name").asText().equals(POLICY)) {
        continue;
      }
      ObjectNode doc = (ObjectNode) d;
      ((ObjectNode) doc.get("metadata")).put("name", POLICY + "-mutant");
      if (doc.path("kind").asText().equals("ValidatingAdmissionPolicy")) {
        ArrayNode validations = (ArrayNode) doc.at("/spec/validations");
        ((ObjectNode) doc.get("spec")).set("validations", mutation.apply(validations.deepCopy()));
      } else {
        ((ObjectNode) doc.get("spec")).put("policyName", POLICY + "-mutant");
      }
      out.add(doc);
    }
    assertThat(out).hasSize(2);
    return out;
  }

  static ArrayNode without(ArrayNode validations, String messagePart) {
    var kept = validations.arrayNode();
    validations.forEach(
        v -> {
          if (!v.path("message").asText().contains(messagePart)) {
            kept.add(v);
          }
        });
    assertThat(kept.size()).isEqualTo(validations.size() - 1);
    return kept;
  }

  static ArrayNode withoutOwnerReferences(ArrayNode validations) {
    for (JsonNode v : validations) {
      String e = v.path("expression").asText();
      if (e.contains("ownerReferences")) {
        var parts = new ArrayList<>(List.of(e.split(" &&\n")));
        parts.removeIf(p -> p.contains("ownerReferences"));
        ((ObjectNode) v).put("expression", String.join(" &&\n", parts));
        return validations;
      }
    }
    throw new AssertionError("no ownerReferences comparison to remove");
  }

  static void apply(RealCluster cluster, List<JsonNode> docs) throws IOException {
    var files = new ArrayList<Path>();
    for (JsonNode d : docs) {
      Path f = Files.createTempFile("gpufleet-mutant", ".yaml");
      Files.writeString(f, Yaml.MAPPER.writeValueAsString(d));
      files.add(f);
    }
    try {
      cluster.applyManifests(files);
    } finally {
      for (Path f : files) {
        Files.deleteIfExists(f);
      }
    }
  }

  @Test
  void shouldHoldForANonDefaultGroupAndFailWhenOneFieldIsLeftOut(
      RealCluster cluster, RealNamespace ns) throws IOException {
    // Given a NodePool, and a caller in a non-default schedule group bound like the schedule
    var api = RealApiConfinementAttackTest.api(cluster);
    var admin = RealApiConfinementAttackTest.admin(cluster);
    var pools = RealApiConfinementAttackTest.nodePools(api, admin, ns.name());
    RealApiConfinementAttackTest.create(
        api,
        admin,
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",
         "metadata":{"name":"%s-%s"},
         "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",
                    "name":"gpufleet-disruption-schedule"},
         "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"%s"}]}
        """
            .formatted(GROUP, ns.name(), GROUP));
    var mutant = new Caller("mutant", cluster.token(), "gpufleet-mutant", List.of(GROUP));
    var policy =
        RealApiConfinementAttackTest.policies(Map.of("ScheduleKubernetesGroup", GROUP)).get(POLICY);
    var target =
        new Target(
            "NodePool " + pools.getFirst(),
            "/apis/karpenter.sh/v1/nodepools/" + pools.getFirst(),
            "/openapi/v3/apis/karpenter.sh/v1",
            "sh.karpenter.v1.NodePool",
            policy,
            true);
    var attack = new ConfinementAttack(api, admin);
    try {
      // When the policy rendered for that group is in force
      apply(cluster, policy(v -> v));
      Outcome holds = attack.fields(target, mutant);

      // Then nothing outside the owned fields is admitted
      assertThat(holds.admitted()).isEmpty();
      assertThat(holds.attempted()).isGreaterThan(30);

      // When spec.weight is left out of it
      apply(cluster, policy(v -> without(v, ", not spec.weight")));
      Outcome weight = attack.fields(target, mutant);

      // Then the suite finds the admitted write of spec.weight, and only that
      assertThat(weight.admitted()).isNotEmpty().allMatch(a -> a.startsWith("spec.weight"));

      // When the owner references are left out of it
      apply(cluster, policy(RealApiConfinementRegressionTest::withoutOwnerReferences));
      Outcome owners = attack.fields(target, mutant);

      // Then the suite finds the admitted owner reference (the garbage collector's way in)
      assertThat(owners.admitted())
          .isNotEmpty()
          .allMatch(a -> a.startsWith("metadata.ownerReferences"));
      System.out.println(
          "confinement attack: regression check: "
              + weight.admitted().size()
              + " admitted writes without spec.weight, "
              + owners.admitted().size()
              + " without ownerReferences (and none with the whole policy, "
              + holds.attempted()
              + " attempted)");
    } finally {
      RealApiConfinementAttackTest.deleteCreatedPools(cluster);
      var vap = "/apis/admissionregistration.k8s.io/v1/";
      api.send(
          admin,
          "DELETE",
          vap + "validatingadmissionpolicybindings/" + POLICY + "-mutant",
          null,
          null);
      api.send(
          admin, "DELETE", vap + "validatingadmissionpolicies/" + POLICY + "-mutant", null, null);
      api.send(
          admin,
          "DELETE",
          "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/" + GROUP + "-" + ns.name(),
          null,
          null);
    }
  }
}

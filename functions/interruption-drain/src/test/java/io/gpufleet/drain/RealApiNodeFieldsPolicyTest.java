package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real API server tier: the ValidatingAdmissionPolicy of deploy/admission/interruption-drain.yaml
 * confines the drain's node writes to the fields it owns. Each write outside them is sent by the
 * drain's identity (refused, node unchanged) and then by an admin (allowed: the refusal is the
 * policy's, not the API server's validation); the drain's own change of all its fields at once is
 * allowed, which also shows the policy can read annotations.
 */
@RealApiServerTest
class RealApiNodeFieldsPolicyTest {
  static final String POLICY = "gpufleet-interruption-drain-node-fields";

  static Stream<Arguments> foreignWrites() {
    return Stream.of(
        Arguments.of(
            "another label",
            "{\"metadata\":{\"labels\":{\"team\":\"ml\"}}}",
            "may change only the labels node.kubernetes.io/exclude-from-external-load-balancers of a node",
            (Predicate<Node>) n -> "ml".equals(n.getMetadata().getLabels().get("team"))),
        Arguments.of(
            "another annotation",
            "{\"metadata\":{\"annotations\":{\"example.com/owner\":\"someone\"}}}",
            "may change only the annotations gpufleet.io/drain of a node",
            (Predicate<Node>)
                n ->
                    n.getMetadata().getAnnotations() != null
                        && "someone"
                            .equals(n.getMetadata().getAnnotations().get("example.com/owner"))),
        Arguments.of(
            "another taint",
            "{\"spec\":{\"taints\":[{\"key\":\"example.com/maintenance\",\"effect\":\"NoSchedule\"}]}}",
            "may add or remove only its own taint",
            (Predicate<Node>)
                n ->
                    n.getSpec().getTaints() != null
                        && n.getSpec().getTaints().stream()
                            .anyMatch(t -> t.getKey().equals("example.com/maintenance"))),
        Arguments.of(
            "a label the node already has",
            "{\"metadata\":{\"labels\":{\"karpenter.sh/capacity-type\":\"on-demand\"}}}",
            "may change only the labels node.kubernetes.io/exclude-from-external-load-balancers of a node",
            (Predicate<Node>)
                n ->
                    "on-demand"
                        .equals(n.getMetadata().getLabels().get("karpenter.sh/capacity-type"))));
  }

  static Node patch(KubernetesClient client, String node, String mergePatch) {
    return client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
        .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
  }

  static String spotNode(RealNamespace ns, String id) {
    return ns.createNode(
            KwokNodes.Spec.karpenter(
                "policy", id, "us-east-1a", "g6e.12xlarge", "spot", "gpu-inference", 4))
        .getMetadata()
        .getName();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("foreignWrites")
  void shouldRefuseTheDrainAWriteOutsideItsFieldsAndAllowItToAnAdmin(
      String what,
      String mergePatch,
      String message,
      Predicate<Node> applied,
      RealCluster cluster,
      RealNamespace ns) {
    // Given a node
    String node = spotNode(ns, "i-0ad0000000000a001");

    // When the drain's identity writes outside its fields
    var refused =
        catchThrowableOfType(
            KubernetesClientException.class, () -> patch(cluster.client(), node, mergePatch));

    // Then the API server refuses it with the policy's message, and the node is unchanged
    assertThat(refused).as("the drain's write of " + what).isNotNull();
    assertThat(refused.getCode()).isEqualTo(422);
    assertThat(refused.getMessage()).contains(POLICY).contains(message);
    assertThat(applied.test(ns.client().nodes().withName(node).get())).isFalse();

    // When an admin sends the same write
    Node after = patch(ns.client(), node, mergePatch);

    // Then it is allowed: the policy, not the API server's own validation, refused the drain
    assertThat(applied.test(after)).isTrue();
  }

  @org.junit.jupiter.api.Test
  void shouldAllowTheDrainToCordonTaintExcludeAndAnnotateInOneWrite(
      RealCluster cluster, RealNamespace ns) {
    // Given a node
    String node = spotNode(ns, "i-0ad0000000000a002");

    // When the drain's identity changes every field it owns at once (what its claim patch does)
    Node after =
        patch(
            cluster.client(),
            node,
            """
            {"metadata":{"labels":{"node.kubernetes.io/exclude-from-external-load-balancers":"true"},
              "annotations":{"gpufleet.io/drain":"{\\"state\\":\\"IN_PROGRESS\\"}"}},
             "spec":{"unschedulable":true,
              "taints":[{"key":"gpufleet.io/interruption","value":"spot","effect":"NoSchedule"}]}}
            """);

    // Then the policy lets it through (it reads labels, annotations and taints to decide)
    assertThat(after.getSpec().getUnschedulable()).isTrue();
    assertThat(after.getMetadata().getAnnotations()).containsKey("gpufleet.io/drain");
    assertThat(after.getMetadata().getLabels())
        .containsEntry("node.kubernetes.io/exclude-from-external-load-balancers", "true");
    assertThat(after.getSpec().getTaints())
        .extracting(t -> t.getKey())
        .containsExactly("gpufleet.io/interruption");

    // and taking its taint and marker away again is its own business too
    Node undone =
        patch(
            cluster.client(),
            node,
            "{\"metadata\":{\"annotations\":{\"gpufleet.io/drain\":null}},"
                + "\"spec\":{\"unschedulable\":null,\"taints\":null}}");
    assertThat(undone.getSpec().getTaints()).isNullOrEmpty();
    assertThat(undone.getMetadata().getAnnotations()).doesNotContainKey("gpufleet.io/drain");
  }
}

package io.gpufleet.preflight.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Real API server tier: the preflight's NodePool reader, as the preflight's own identity (list
 * nodepools.karpenter.sh and nothing else), over NodePools of the tier's reduced NodePool CRD.
 */
@RealApiServerTest
class RealApiNodePoolsTest {

  @AfterEach
  void deleteNodePools(RealNamespace ns) {
    ns.client().genericKubernetesResources(NodePoolAdapter.NODE_POOLS).list().getItems().stream()
        .filter(p -> p.getMetadata().getName().startsWith(ns.name() + "-"))
        .forEach(
            p ->
                ns.client()
                    .genericKubernetesResources(NodePoolAdapter.NODE_POOLS)
                    .withName(p.getMetadata().getName())
                    .delete());
  }

  @Test
  void shouldReadEachPoolsLimitsAndInstanceRequirements(RealCluster cluster, RealNamespace ns) {
    // Given a GPU NodePool with a GPU and CPU limit and instance-family/capacity-type requirements
    String name = ns.name() + "-gpu";
    String json =
        """
        {"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"limits":{"nvidia.com/gpu":64,"cpu":"1000"},
          "template":{"spec":{
            "nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"gpu"},
            "requirements":[
              {"key":"karpenter.k8s.aws/instance-family","operator":"In","values":["p5","g6e"]},
              {"key":"karpenter.sh/capacity-type","operator":"In","values":["spot"]}]}}}}
        """
            .formatted(name);
    ns.client()
        .genericKubernetesResources(NodePoolAdapter.NODE_POOLS)
        .resource(
            ns.client()
                .getKubernetesSerialization()
                .unmarshal(json, GenericKubernetesResource.class))
        .create();

    // When the preflight reads the NodePools as itself
    var pools = new NodePoolAdapter(cluster.client()).nodePools();

    // Then it sees the pool's limits (as the API server stores them) and requirements
    assertThat(pools)
        .filteredOn(p -> p.name().equals(name))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.limits())
                  .containsEntry("nvidia.com/gpu", "64")
                  .containsEntry("cpu", "1000");
              assertThat(p.requirements())
                  .containsExactly(
                      new NodePoolSpec.Requirement(
                          "karpenter.k8s.aws/instance-family",
                          "In",
                          java.util.List.of("p5", "g6e")),
                      new NodePoolSpec.Requirement(
                          "karpenter.sh/capacity-type", "In", java.util.List.of("spot")));
            });
  }
}

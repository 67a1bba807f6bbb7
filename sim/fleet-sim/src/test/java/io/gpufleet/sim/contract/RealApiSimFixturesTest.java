package io.gpufleet.sim.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.DemoWorkloads;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulated clusters' custom resources (the NodePools and ScaledObjects that {@code simulate},
 * {@code invoke} and the handler tests start from) are objects the real API server accepts with
 * Karpenter's and KEDA's published CRDs: each is created there with a server-side dry run. The
 * simulator does not validate CRD schemas, so a fixture it accepts but the real server refuses (a
 * NodePool without {@code spec.disruption.consolidateAfter}, required since Karpenter v1) would
 * otherwise go unnoticed until a real-API test built on it fails.
 */
@RealApiServerTest
class RealApiSimFixturesTest {

  @Test
  void everyCustomResourceOfTheSimulatedClustersPassesThePublishedSchemas(
      RealCluster real, RealNamespace ns) {
    List<String> refused = new ArrayList<>();
    int checked = 0;
    try (SimCluster sim = SimCluster.start(SimTime.realTime())) {
      DemoFleet.populateNodePools(sim);
      DemoWorkloads.populate(sim);
      var simClient = sim.newClient();
      for (ResourceDefinitionContext kind :
          List.of(KubernetesContract.NODEPOOLS, KubernetesContract.SCALEDOBJECTS)) {
        for (GenericKubernetesResource item :
            simClient.genericKubernetesResources(kind).inAnyNamespace().list().getItems()) {
          GenericKubernetesResource copy = copyInto(item, ns.name(), kind.isNamespaceScoped());
          var resources = real.admin().genericKubernetesResources(kind);
          var target = kind.isNamespaceScoped() ? resources.inNamespace(ns.name()) : resources;
          try {
            target.resource(copy).dryRun().create();
          } catch (KubernetesClientException e) {
            refused.add(
                kind.getKind() + " " + item.getMetadata().getName() + ": " + e.getMessage());
          }
          checked++;
        }
      }
    }
    assertThat(checked).as("custom resources in the simulated clusters").isGreaterThanOrEqualTo(7);
    assertThat(refused).as("refused by the real API server").isEmpty();
  }

  /** The object as a client would create it: name, labels, annotations and the body only. */
  private static GenericKubernetesResource copyInto(
      GenericKubernetesResource item, String namespace, boolean namespaced) {
    var meta = item.getMetadata();
    var copy = new GenericKubernetesResource();
    copy.setApiVersion(item.getApiVersion());
    copy.setKind(item.getKind());
    copy.setMetadata(
        new ObjectMetaBuilder()
            .withName(namespaced ? meta.getName() : namespace + "-" + meta.getName())
            .withNamespace(namespaced ? namespace : null)
            .withLabels(meta.getLabels())
            .withAnnotations(meta.getAnnotations())
            .build());
    item.getAdditionalProperties().forEach(copy::setAdditionalProperty);
    copy.getAdditionalProperties().remove("status");
    return copy;
  }
}

package io.gpufleet.preflight.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodePoolManifestsTest {
  @Test
  void shouldReadPoolsDraWorkloadsAndTheKarpenterControllerFromOneFile() {
    var m =
        new NodePoolManifests()
            .add(
                """
                apiVersion: karpenter.sh/v1
                kind: NodePool
                metadata: {name: gpu, labels: {gpufleet.io/role: inference}}
                spec:
                  limits: {nvidia.com/gpu: 16}
                  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 5m}
                  template:
                    spec:
                      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
                      requirements:
                        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6e]}
                ---
                apiVersion: batch/v1
                kind: CronJob
                metadata: {name: eval, namespace: ml}
                spec:
                  schedule: "0 * * * *"
                  jobTemplate:
                    spec:
                      template:
                        spec:
                          nodeSelector: {karpenter.sh/nodepool: gpu}
                          resourceClaims: [{name: g, resourceClaimName: shared-gpu}]
                          containers: [{name: c, image: x}]
                ---
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: karpenter, namespace: kube-system}
                spec:
                  template:
                    spec:
                      containers:
                        - name: controller
                          image: public.ecr.aws/karpenter/controller:1.14.1@sha256:abc
                          env: [{name: IGNORE_DRA_REQUESTS, value: "false"}]
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: other}
                """,
                "f.yaml");

    assertThat(m.pools())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.name()).isEqualTo("gpu");
              assertThat(p.limits()).isEqualTo(Map.of("nvidia.com/gpu", "16"));
              assertThat(p.consolidationPolicy()).isEqualTo("WhenEmptyOrUnderutilized");
              assertThat(p.consolidateAfter()).isEqualTo("5m");
              assertThat(p.autoMode()).isTrue();
              assertThat(p.labels()).containsEntry("gpufleet.io/role", "inference");
            });
    assertThat(m.draWorkloads())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.ref()).isEqualTo("CronJob ml/eval");
              assertThat(w.claims()).containsExactly("claim shared-gpu");
              assertThat(w.nodeSelector()).containsEntry("karpenter.sh/nodepool", "gpu");
            });
    assertThat(m.karpenterVersion()).contains("1.14.1");
    assertThat(m.ignoreDRARequests()).contains(false);
    assertThat(m.skipped()).containsExactly("Deployment karpenter", "ConfigMap other");
  }

  @Test
  void shouldRejectAnOlderNodePoolApiWithTheDocumentNamed() {
    assertThatThrownBy(
            () ->
                new NodePoolManifests()
                    .add(
                        "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\n",
                        "pools.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "pools.yaml document 1: NodePool old is karpenter.sh/v1beta1; only karpenter.sh/v1 is"
                + " read (convert it first)");
  }

  @Test
  void shouldRejectInvalidYamlWithTheFileNamed() {
    assertThatThrownBy(() -> new NodePoolManifests().add("kind: [unclosed", "bad.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("bad.yaml: not valid YAML");
  }
}
